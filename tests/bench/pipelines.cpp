// Balanced pipelines for `scripts/bench pipeline`: W warps (2, 3, 4), each one stage,
// handing tiles over rings of D pool slots (D = 1..4). Every stage costs the same: a fixed
// S2P_COST on the simulator, the same floating-point work on real threads.
#include <seq2par/seq2par.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

constexpr int kTile = 256;

namespace {
int work_rounds() {
  const char* env = std::getenv("S2P_BENCH_WORK");
  return env ? std::atoi(env) : 0;
}
void stage_work(const float* src, float* dst, std::size_t n, int rounds) {
  for (std::size_t k = 0; k < n; ++k) {
    float x = src[k];
    for (int r = 0; r < rounds; ++r)
      x = std::sin(x) * 0.75f + 0.25f;
    dst[k] = x + 1.0f;
  }
}
} // namespace

S2P_INTRINSIC S2P_COST(1000) void stage(s2p::in<float> src, s2p::out<float> dst) {
  stage_work(src.data(), dst.data(), dst.size(), work_rounds());
}

S2P_KERNEL void pipeline_w2_d1(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 1 * 1 * kTile> smem;
  auto ring0 = smem.tensor<1, kTile>(0 * 1 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 1]);
    S2P_WARP(1) stage(ring0[i % 1], out[i]);
  }
}

S2P_KERNEL void pipeline_w2_d2(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 1 * 2 * kTile> smem;
  auto ring0 = smem.tensor<2, kTile>(0 * 2 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 2]);
    S2P_WARP(1) stage(ring0[i % 2], out[i]);
  }
}

S2P_KERNEL void pipeline_w2_d3(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 1 * 3 * kTile> smem;
  auto ring0 = smem.tensor<3, kTile>(0 * 3 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 3]);
    S2P_WARP(1) stage(ring0[i % 3], out[i]);
  }
}

S2P_KERNEL void pipeline_w2_d4(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 1 * 4 * kTile> smem;
  auto ring0 = smem.tensor<4, kTile>(0 * 4 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 4]);
    S2P_WARP(1) stage(ring0[i % 4], out[i]);
  }
}

S2P_KERNEL void pipeline_w3_d1(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 2 * 1 * kTile> smem;
  auto ring0 = smem.tensor<1, kTile>(0 * 1 * kTile);
  auto ring1 = smem.tensor<1, kTile>(1 * 1 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 1]);
    S2P_WARP(1) stage(ring0[i % 1], ring1[i % 1]);
    S2P_WARP(2) stage(ring1[i % 1], out[i]);
  }
}

S2P_KERNEL void pipeline_w3_d2(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 2 * 2 * kTile> smem;
  auto ring0 = smem.tensor<2, kTile>(0 * 2 * kTile);
  auto ring1 = smem.tensor<2, kTile>(1 * 2 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 2]);
    S2P_WARP(1) stage(ring0[i % 2], ring1[i % 2]);
    S2P_WARP(2) stage(ring1[i % 2], out[i]);
  }
}

S2P_KERNEL void pipeline_w3_d3(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 2 * 3 * kTile> smem;
  auto ring0 = smem.tensor<3, kTile>(0 * 3 * kTile);
  auto ring1 = smem.tensor<3, kTile>(1 * 3 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 3]);
    S2P_WARP(1) stage(ring0[i % 3], ring1[i % 3]);
    S2P_WARP(2) stage(ring1[i % 3], out[i]);
  }
}

S2P_KERNEL void pipeline_w3_d4(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 2 * 4 * kTile> smem;
  auto ring0 = smem.tensor<4, kTile>(0 * 4 * kTile);
  auto ring1 = smem.tensor<4, kTile>(1 * 4 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 4]);
    S2P_WARP(1) stage(ring0[i % 4], ring1[i % 4]);
    S2P_WARP(2) stage(ring1[i % 4], out[i]);
  }
}

S2P_KERNEL void pipeline_w4_d1(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 3 * 1 * kTile> smem;
  auto ring0 = smem.tensor<1, kTile>(0 * 1 * kTile);
  auto ring1 = smem.tensor<1, kTile>(1 * 1 * kTile);
  auto ring2 = smem.tensor<1, kTile>(2 * 1 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 1]);
    S2P_WARP(1) stage(ring0[i % 1], ring1[i % 1]);
    S2P_WARP(2) stage(ring1[i % 1], ring2[i % 1]);
    S2P_WARP(3) stage(ring2[i % 1], out[i]);
  }
}

S2P_KERNEL void pipeline_w4_d2(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 3 * 2 * kTile> smem;
  auto ring0 = smem.tensor<2, kTile>(0 * 2 * kTile);
  auto ring1 = smem.tensor<2, kTile>(1 * 2 * kTile);
  auto ring2 = smem.tensor<2, kTile>(2 * 2 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 2]);
    S2P_WARP(1) stage(ring0[i % 2], ring1[i % 2]);
    S2P_WARP(2) stage(ring1[i % 2], ring2[i % 2]);
    S2P_WARP(3) stage(ring2[i % 2], out[i]);
  }
}

S2P_KERNEL void pipeline_w4_d3(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 3 * 3 * kTile> smem;
  auto ring0 = smem.tensor<3, kTile>(0 * 3 * kTile);
  auto ring1 = smem.tensor<3, kTile>(1 * 3 * kTile);
  auto ring2 = smem.tensor<3, kTile>(2 * 3 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 3]);
    S2P_WARP(1) stage(ring0[i % 3], ring1[i % 3]);
    S2P_WARP(2) stage(ring1[i % 3], ring2[i % 3]);
    S2P_WARP(3) stage(ring2[i % 3], out[i]);
  }
}

S2P_KERNEL void pipeline_w4_d4(s2p::tensor_ref<float> in, s2p::tensor_ref<float> out, int n) {
  s2p::pool<float, 3 * 4 * kTile> smem;
  auto ring0 = smem.tensor<4, kTile>(0 * 4 * kTile);
  auto ring1 = smem.tensor<4, kTile>(1 * 4 * kTile);
  auto ring2 = smem.tensor<4, kTile>(2 * 4 * kTile);
  for (int i = 0; i < n; ++i) {
    S2P_WARP(0) stage(in[i], ring0[i % 4]);
    S2P_WARP(1) stage(ring0[i % 4], ring1[i % 4]);
    S2P_WARP(2) stage(ring1[i % 4], ring2[i % 4]);
    S2P_WARP(3) stage(ring2[i % 4], out[i]);
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  std::vector<float> in(static_cast<std::size_t>(n) * kTile), out(in.size());
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = static_cast<float>(k % 1000) * 1e-3f;
  auto run = [&](const char* name,
                 void (*kernel)(s2p::tensor_ref<float>, s2p::tensor_ref<float>, int)) {
    const auto start = std::chrono::steady_clock::now();
    kernel({in.data(), static_cast<std::size_t>(n), kTile},
           {out.data(), static_cast<std::size_t>(n), kTile}, n);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double sum = 0;
    for (float v : out)
      sum += v;
    std::printf("%s seconds=%.6f checksum=%a\n", name, seconds, sum);
  };
  run("pipeline_w2_d1", pipeline_w2_d1);
  run("pipeline_w2_d2", pipeline_w2_d2);
  run("pipeline_w2_d3", pipeline_w2_d3);
  run("pipeline_w2_d4", pipeline_w2_d4);
  run("pipeline_w3_d1", pipeline_w3_d1);
  run("pipeline_w3_d2", pipeline_w3_d2);
  run("pipeline_w3_d3", pipeline_w3_d3);
  run("pipeline_w3_d4", pipeline_w3_d4);
  run("pipeline_w4_d1", pipeline_w4_d1);
  run("pipeline_w4_d2", pipeline_w4_d2);
  run("pipeline_w4_d3", pipeline_w4_d3);
  run("pipeline_w4_d4", pipeline_w4_d4);
  return 0;
}
