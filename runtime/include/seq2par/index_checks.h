// <seq2par/index_checks.h> — whether element accesses check their index.
//
// An element access (s2p::field's `f[i]` and `f(i, j)`, an agile field's, a sub-tensor view's
// `v[k]`) checks its index and throws std::out_of_range outside the extent when
// S2P_CHECK_INDICES is 1: by default in builds without NDEBUG, as `assert` does. A release
// build (-DNDEBUG) indexes as a plain array does, so the loops of the sequential program
// compile to what its plain loop nest compiles to (vectorized); define S2P_CHECK_INDICES=1 to
// keep the checks there. Checks that cost nothing per element stay on in every build: a
// view, section or block outside its field, a pool tensor's or tensor_ref's coordinates, and a
// multi-tile forall's reads, which the runtime checks once per launch against each input's
// extent before any task runs.
#pragma once

#ifndef S2P_CHECK_INDICES
#ifdef NDEBUG
#define S2P_CHECK_INDICES 0
#else
#define S2P_CHECK_INDICES 1
#endif
#endif
