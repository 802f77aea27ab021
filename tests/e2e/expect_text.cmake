# Fails unless FILE contains the literal text EXPECT (a generated file carries what an option
# asked for).
file(READ "${FILE}" text)
string(FIND "${text}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${FILE} does not contain: ${EXPECT}")
endif()
