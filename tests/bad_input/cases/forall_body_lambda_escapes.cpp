// A lambda of the forall body that reads agile fields is read where it is called; a use that
// would call it where seq2par does not look (a std::function, a pointer, a parameter of
// another type) is refused, and so are a lambda that writes the output, one that copies a
// field into an init-capture, and one that names the agile field type in its parameter.
#include <seq2par/seq2par.h>
#include <functional>
double apply_fn(const std::function<double(long)>& f, long c) { return f(c); }
S2P_KERNEL S2P_TILES(4) void k(s2p::field<1, double>& x, s2p::field<1, double>& y) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto xd = s2p::agile(x, map);
  auto yd = s2p::agile(y, map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    std::function<double(long)> f = [&](long c) { return xd[{c}]; };
    yd[i] = f(i[0]);
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) { yd[i] = apply_fn([&](long c) { return xd[{c}]; }, i[0]); });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto at = [&](long c) { return xd[{c}]; };
    auto* p = &at;
    yd[i] = (*p)(i[0]);
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto put = [&](double v) { yd[i] = v; };
    put(xd[i]);
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto at = [f = xd](long c) { return f[{c}]; };
    yd[i] = at(i[0]);
  });
  s2p::forall(yd.extent(), [&](s2p::index<1> i) {
    auto at = [](const s2p::agile_field<1, double>& f, long c) { return f[{c}]; };
    yd[i] = at(xd, i[0]);
  });
}
// EXPECT: 13:37: error: the forall body uses a lambda that reads agile fields other than by calling it, naming it with auto, or passing it to a visible helper that calls it; seq2par reads such a lambda's accesses where it is called
// EXPECT: 16:68: error: the forall body passes a lambda that reads agile fields as a parameter of another type; seq2par reads such a lambda's accesses where it is called, so pass it by a deduced type (const auto& f, or a template parameter)
// EXPECT: 19:16: error: the forall body uses a lambda that reads agile fields other than by calling it, naming it with auto, or passing it to a visible helper that calls it; seq2par reads such a lambda's accesses where it is called
// EXPECT: 23:32: error: the forall body writes agile field 'yd' in the lambda at line 23, or lets a reference to it out of the lambda; write the output in the forall body itself (Yd[i] = helper(...))
// EXPECT: 27:20: error: the forall body uses agile field 'xd' other than as an element (xd[index]), its extent() or an argument of a visible helper; seq2par moves to each tile the elements the body's indices name, so a local reference, pointer or copy of the field would read elements it never moved: index the field itself
// EXPECT: 31:53: error: the lambda takes agile field 'xd' as 'const s2p::agile_field<1, double> &'; on the tiles the body reads a field through a view of its own, so a helper takes it by a deduced type (const auto& f, or a template parameter)
