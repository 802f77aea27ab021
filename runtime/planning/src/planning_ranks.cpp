// The rank-only planning templates (<seq2par/planning_ranks.h>) compiled once, for ranks 1 to
// 4: the runtime library and seq2par (whose schedule templates plan with the same functions)
// both link these objects.
#include <seq2par/planning_ranks.h>

S2P_PLANNING_RANKS()
