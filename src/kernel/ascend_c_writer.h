// A kernel key's Ascend-style kernel as Ascend C source, the way a kernel
// engineer writes it: GlobalTensor, TPipe, TQue with BUFFER_NUM, AllocTensor,
// DataCopy / DataCopyPad, the vector calls of the lowering (NOTE: [Ascend
// lowering]), EnQue / DeQue / FreeTensor, and the tiling struct. It issues
// the same calls, in the same order, with the same UB addresses as the LLVM
// kernel of the key (tests/test_ascend_c.cpp compiles it against a stub
// kernel_operator.h and compares the two call by call).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "ascend_product.h"
#include "kernel_key.h"

namespace bcast::ascend {

// The two ways a kernel is launched, and so its entry point:
enum class AscendCForm {
  // A direct launch (<<<...>>> or the launcher): out first, then the
  // inputs, then the tiling's GM address, which the kernel copies itself:
  //   extern "C" void bcast_kernel(GM_ADDR gm_out, GM_ADDR gm_x0, ..., GM_ADDR tiling)
  direct,
  // An operator project's kernel: inputs, outputs, workspace, tiling, the
  // tiling read with the framework's GET_TILING_DATA:
  //   extern "C" void bcast_kernel(GM_ADDR gm_x0, ..., GM_ADDR gm_out, GM_ADDR workspace, GM_ADDR tiling)
  operator_project,
};

// AscendCForm's names, in its order (the tools' --ascend-c-form).
inline constexpr std::array<std::string_view, 2> kAscendCFormNames{"direct", "operator"};
inline std::optional<AscendCForm> ascend_c_form_named(std::string_view name) {
  if (name == kAscendCFormNames[0]) return AscendCForm::direct;
  if (name == kAscendCFormNames[1]) return AscendCForm::operator_project;
  return std::nullopt;
}

// The source of `key`'s kernel on `product` in `form`, or nullopt with `why`
// (the lowering's refusal, or a step the writer does not spell yet).
std::optional<std::string> write_ascend_c(const KernelKey& key, const Product& product, std::string& why,
                                          AscendCForm form = AscendCForm::direct);

}  // namespace bcast::ascend
