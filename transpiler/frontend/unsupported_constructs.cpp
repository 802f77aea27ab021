#include "frontend/unsupported_constructs.h"

#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>

#include <memory>
#include <vector>

namespace s2p::frontend {

using namespace clang::ast_matchers;

namespace {

struct Rule {
  StatementMatcher matcher;
  const char* message;
};

// Why each construct is refused: a kernel describes a static schedule of intrinsic calls.
const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {whileStmt().bind("s"),
       "'while' loops are not supported in a kernel; use a 'for' loop with affine bounds"},
      {doStmt().bind("s"),
       "'do'-'while' loops are not supported in a kernel; use a 'for' loop with affine bounds"},
      {cxxForRangeStmt().bind("s"), "range-based 'for' loops are not supported in a kernel; use a "
                                    "'for' loop over an integer index"},
      // `if` is extract_conditions.cpp's: accepted when its condition is static. A statement
      // expression would hide one from that walk.
      {stmtExpr().bind("s"), "statement expressions '({ ... })' are not supported in a kernel"},
      {switchStmt().bind("s"),
       "'switch' statements are not supported in a kernel: control flow must not depend on data"},
      {conditionalOperator().bind("s"),
       "the conditional operator '?:' is not supported in a kernel"},
      {gotoStmt().bind("s"), "'goto' is not supported in a kernel"},
      {labelStmt().bind("s"), "labels are not supported in a kernel"},
      {breakStmt().bind("s"),
       "'break' is not supported in a kernel: loops must run their full trip count"},
      {continueStmt().bind("s"),
       "'continue' is not supported in a kernel: loops must run their full trip count"},
      {cxxTryStmt().bind("s"), "exceptions ('try') are not supported in a kernel"},
      {cxxThrowExpr().bind("s"), "exceptions ('throw') are not supported in a kernel"},
      {cxxNewExpr().bind("s"),
       "'new' is not supported in a kernel; declare an s2p::pool for on-tile memory"},
      {cxxDeleteExpr().bind("s"), "'delete' is not supported in a kernel"},
      {lambdaExpr().bind("s"), "lambdas are not supported in a kernel; write a helper function"},
      {asmStmt().bind("s"), "inline assembly is not supported in a kernel"},
      {binaryOperator(isAssignmentOperator(), unless(hasParent(forStmt()))).bind("s"),
       "assignments are not supported in a kernel: kernels describe which intrinsics run on which "
       "sub-tensors; "
       "compute indices in 'const' declarations"},
      {cxxOperatorCallExpr(isAssignmentOperator()).bind("s"),
       "assignments are not supported in a kernel: data moves only through intrinsic calls"},
      {unaryOperator(anyOf(hasOperatorName("++"), hasOperatorName("--")),
                     unless(hasParent(forStmt())))
           .bind("s"),
       "increments and decrements are not supported in a kernel outside a 'for' loop's increment"},
      {unaryOperator(hasOperatorName("&")).bind("s"),
       "taking an address is not supported in a kernel (pointer arithmetic on pools is not "
       "allowed)"},
  };
  return table;
}

class Collector : public MatchFinder::MatchCallback {
public:
  explicit Collector(const ReportFn& report) : report_(report) {}
  void run(const MatchFinder::MatchResult& result) override {
    if (const auto* stmt = result.Nodes.getNodeAs<clang::Stmt>("s")) {
      report_(stmt->getBeginLoc(), message_);
      ++found_;
    }
  }
  void set_message(const char* message) { message_ = message; }
  int found() const { return found_; }

private:
  const ReportFn& report_;
  const char* message_ = "";
  int found_ = 0;
};

} // namespace

int report_unsupported_constructs(const clang::Stmt& body, clang::ASTContext& ctx,
                                  const ReportFn& report) {
  Collector collector(report);
  for (const auto& rule : rules()) {
    collector.set_message(rule.message);
    MatchFinder finder;
    // Inside a statement expression, which is refused whole, a construct says nothing more.
    finder.addMatcher(stmt(forEachDescendant(stmt(rule.matcher, unless(hasAncestor(stmtExpr()))))),
                      &collector);
    finder.match(body, ctx);
  }
  return collector.found();
}

} // namespace s2p::frontend
