"""Hostile expression text through the module (NOTE: [Expression limits]):
deep nesting, long chains, bytes outside the grammar and NULs are ValueErrors
with their whole message, never a crash, on the main thread and on a thread
with a small stack."""
import threading

import numpy as np
import pytest

import bcast

DEPTH = 256  # kMaxExpressionDepth (include/bcast/expr.h)
X = np.arange(4, dtype=np.float32)


def message_of(text: str) -> str:
    with pytest.raises(ValueError) as raised:
        bcast.evaluate(text, x=X, y=X)
    message = str(raised.value)
    assert message.isascii() and message.isprintable(), repr(message)
    return message


@pytest.mark.parametrize("text", [
    "(" * 10_000 + "x" + ")" * 10_000,
    "-" * 30_000 + "x",
    "abs(" * 10_000 + "x" + ")" * 10_000,
    "x" + "+x" * 19_999,
], ids=["parentheses", "unary_minuses", "abs_calls", "chain"])
def test_deep_expressions_are_value_errors_naming_the_limit(text):
    assert f"deeper than {DEPTH} levels" in message_of(text)


def test_characters_outside_the_grammar_are_value_errors():
    assert "character U+0661 is not part of the grammar" in message_of("x + \u0661")
    # A NUL is a byte of the text like any other: refused, and the message
    # goes on past it (it used to end there).
    message = message_of("x\0 + y")
    assert "control byte \\x00" in message and '"x\\x00 + y"' in message
    # A lone surrogate (a stray byte of a file name, decoded) is no character.
    assert "at position 4: U+DCFF is a lone surrogate" in message_of("x + \udcff")


def test_the_deepest_allowed_expression_runs_on_a_thread_with_a_small_stack():
    text = "(" * (DEPTH - 1) + "x + 1" + ")" * (DEPTH - 1)
    results = []
    previous = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=lambda: results.append(bcast.evaluate(text, x=X)))
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert len(results) == 1
    np.testing.assert_array_equal(results[0], X + 1)
