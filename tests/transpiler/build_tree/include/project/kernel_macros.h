// The project's own spelling of a kernel: the pre-scan must follow it here.
#pragma once
#include <seq2par/seq2par.h>
#define PROJECT_KERNEL S2P_KERNEL
