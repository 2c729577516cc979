// Uses the installed bcast: a row broadcast, checked by hand.
#include <bcast/bcast.h>

#include <cstdio>

int main() {
  bcast::Tensor x(bcast::DType::f32, {2, 3});
  bcast::Tensor row(bcast::DType::f32, {3});
  for (int i = 0; i < 6; ++i) x.data_as<float>()[i] = static_cast<float>(i);
  for (int j = 0; j < 3; ++j) row.data_as<float>()[j] = 10.0f * static_cast<float>(j + 1);
  const bcast::Tensor y = bcast::add(x, row);
  const float expected[6] = {10, 21, 32, 13, 24, 35};
  for (int i = 0; i < 6; ++i) {
    if (y.data_as<float>()[i] != expected[i]) {
      std::printf("element %d: %g, expected %g\n", i, y.data_as<float>()[i], expected[i]);
      return 1;
    }
  }
  std::printf("installed bcast %s works\n", bcast::runtime_info().version.c_str());
  return 0;
}
