# Makes a hand-broken copy of a generated program: drops its first `s2p_w.signal(N);` for
# the given channel, so the warp waiting for it can never proceed (a deadlock), or with
# REMOVE, the first occurrence of that exact text (a wait: the data race it guarded).
#   cmake -DIN=<generated.par.cpp> -DOUT=<broken.cpp> (-DCHANNEL=<n> | -DREMOVE=<text>)
#         -P break_channel.cmake
file(READ "${IN}" text)
if(NOT DEFINED REMOVE)
  set(REMOVE "s2p_w.signal(${CHANNEL});")
endif()
string(FIND "${text}" "${REMOVE}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "no '${REMOVE}' in ${IN}")
endif()
string(SUBSTRING "${text}" 0 ${at} head)
string(LENGTH "${REMOVE}" length)
math(EXPR rest "${at} + ${length}")
string(SUBSTRING "${text}" ${rest} -1 tail)
file(WRITE "${OUT}" "${head}/* removed on purpose */${tail}")
