#!/bin/sh
# A compiler wrapper for tests/tune: builds every generated file (.par.cpp) with
# S2P_TUNE_TEST_SABOTAGE, so the tuned program prints something else than the sequential one
# and `seq2par tune` must refuse it. $S2P_TUNE_REAL_CXX is the real compiler.
for arg in "$@"; do
  case "$arg" in
    *.par.cpp) exec "$S2P_TUNE_REAL_CXX" -DS2P_TUNE_TEST_SABOTAGE "$@" ;;
  esac
done
exec "$S2P_TUNE_REAL_CXX" "$@"
