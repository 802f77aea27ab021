// Builds small kernels directly in seq2par's IR, so passes are tested without parsing C++.
#pragma once

#include "ir/kernel.h"

#include <string>
#include <utility>
#include <vector>

namespace s2p::test {

using ir::AccessMode;
using ir::Expr;
using ir::ScheduleNode;

inline Expr var(const std::string& name) {
  return Expr::variable(name);
}
inline Expr lit(std::int64_t v) {
  return Expr::constant(v);
}

struct Arg {
  int tensor;
  Expr coord; // rank-1 coordinate
  AccessMode mode;
};

class KernelBuilder {
public:
  explicit KernelBuilder(std::string name) {
    kernel_.name = std::move(name);
    kernel_.root.kind = ScheduleNode::Kind::Kernel;
    kernel_.root.name = kernel_.name;
  }

  int pool(const std::string& name, std::int64_t units) {
    kernel_.pools.push_back({name, "float", units, {}});
    return static_cast<int>(kernel_.pools.size()) - 1;
  }
  int tensor(const std::string& name, int pool, std::int64_t offset, std::int64_t count,
             std::int64_t size) {
    ir::Tensor t;
    t.name = name;
    t.kind = ir::TensorKind::Pool;
    t.pool = pool;
    t.offset = lit(offset);
    t.shape = {count};
    t.sub_size = size;
    t.element_type = "float";
    kernel_.tensors.push_back(t);
    return static_cast<int>(kernel_.tensors.size()) - 1;
  }
  int ref(const std::string& name) {
    ir::Tensor t;
    t.name = name;
    t.kind = ir::TensorKind::Ref;
    t.element_type = "float";
    kernel_.tensors.push_back(t);
    return static_cast<int>(kernel_.tensors.size()) - 1;
  }

  // callee(t0[c0], t1[c1], ...) on `warp`; each coordinate is a hole evaluated per instance.
  ScheduleNode call(const std::string& callee, int warp, const std::vector<Arg>& args,
                    unsigned line = 0) const {
    ScheduleNode node;
    node.kind = ScheduleNode::Kind::Call;
    node.loc.line = line;
    ir::CallSite& call = node.call;
    call.callee = callee;
    call.warp = warp;
    call.loc.line = line;
    call.text = callee + "(";
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (i)
        call.text += ", ";
      call.text += kernel_.tensors[args[i].tensor].name + "[";
      const std::string placeholder = args[i].coord.to_cpp();
      call.holes.push_back({call.text.size(), placeholder.size(), args[i].coord, ""});
      call.text += placeholder + "]";
      ir::Access access;
      access.tensor = args[i].tensor;
      access.coords = {args[i].coord};
      access.mode = args[i].mode;
      call.accesses.push_back(access);
    }
    call.text += ")";
    return node;
  }

  static ScheduleNode loop(const std::string& v, Expr init, Expr bound,
                           std::vector<ScheduleNode> body, std::int64_t step = 1) {
    ScheduleNode node;
    node.kind = ScheduleNode::Kind::Loop;
    node.name = v;
    node.init = std::move(init);
    node.bound = std::move(bound);
    node.step = step;
    node.children = std::move(body);
    return node;
  }
  static ScheduleNode function(const std::string& name, std::vector<ScheduleNode> body) {
    ScheduleNode node;
    node.kind = ScheduleNode::Kind::Function;
    node.name = name;
    node.children = std::move(body);
    return node;
  }

  // An integer kernel parameter (a run-time value).
  KernelBuilder& symbol(const std::string& name) {
    kernel_.symbols.push_back(name);
    return *this;
  }

  KernelBuilder& add(ScheduleNode node) {
    kernel_.root.children.push_back(std::move(node));
    return *this;
  }
  const ir::Kernel& kernel() const { return kernel_; }

private:
  ir::Kernel kernel_;
};

// The Fig. 3 program, built by hand: three stages, producers on warp 0, consumers
// on warp 1, pool of 60 with aliasing tensors.
ir::Kernel fig3_kernel();

// load (warp 0) -> compute (warp 1) -> store (warp 2) over rings of `depth` 10-float slots,
// for i in [0, trips). A symbolic trip count names a kernel parameter (`symbol`).
ir::Kernel ring_pipeline(int depth, Expr trips, const std::string& symbol = "");

// A rank-1 element forall at `line` writing `output` at its index, with its reads (and, if
// given, its body's text, as fusion pastes it).
inline ir::TileStep forall_step(unsigned line, std::string output,
                                std::vector<ir::TileStep::Read> reads, std::string body = "") {
  ir::TileStep step;
  step.kind = ir::TileStep::Kind::Forall;
  step.loc = {"k.cpp", line, 3};
  step.rank = 1;
  step.output = std::move(output);
  step.reads = std::move(reads);
  step.body = std::move(body);
  step.text = "forall at line " + std::to_string(line);
  return step;
}

} // namespace s2p::test
