# Makes a hand-broken copy of a generated program: drops its first `s2p_w.signal(N);`
# for the given channel, so the warp waiting for it can never proceed.
#   cmake -DIN=<generated.par.cpp> -DOUT=<broken.cpp> -DCHANNEL=<n> -P break_channel.cmake
file(READ "${IN}" text)
string(FIND "${text}" "s2p_w.signal(${CHANNEL});" at)
if(at EQUAL -1)
  message(FATAL_ERROR "no signal on channel ${CHANNEL} in ${IN}")
endif()
string(SUBSTRING "${text}" 0 ${at} head)
string(LENGTH "s2p_w.signal(${CHANNEL});" length)
math(EXPR rest "${at} + ${length}")
string(SUBSTRING "${text}" ${rest} -1 tail)
file(WRITE "${OUT}" "${head}/* signal removed on purpose */${tail}")
