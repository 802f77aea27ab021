#include <vector>
int count(const std::vector<int>& v) { return static_cast<int>(v.size()); }
