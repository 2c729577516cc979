// NOTE: [Text memo]: bcast.evaluate's text, parsed once for the same operands.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "bcast/expr.h"

namespace bcast::python {

// NOTE: [Text memo] bcast.evaluate(text, **operands) parses its text into a
// new expression every call, so the memos keyed by the expression (NOTE:
// [Expression memo], NOTE: [Passes memo]) never saw it again, and a small
// call planned itself afresh each time. Each thread keeps the expression of
// its last text with its operands as they were given: the same text with
// every operand the same (an array's data pointer, dtype and layout; a
// number's value, kind and bits) is the same expression, whose views read
// the very memory the call's arrays hold (a view is a pointer: it keeps
// nothing alive, and is reused only while an operand of the call has it).
Expr parsed_expression(std::string_view text, const std::map<std::string, ExprOperand, std::less<>>& operands);

}  // namespace bcast::python
