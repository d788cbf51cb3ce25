"""64-bit hashing of symbols and of k-grams, vectorized.

k-grams are hashed with the Karp–Rabin polynomial  H = sum s[i] * B^(k-1-i)
modulo 2^64 (numpy's uint64 arithmetic wraps, which is the modulus). Instead of
rolling one position at a time in a Python loop, the hashes of all k-grams are
built by doubling: the hashes of all 2m-grams follow from those of all m-grams
in one array operation, so the cost is O(n log k) array work.

Symbols are first scrambled by SplitMix64 with a salt (so that different modes
never share hashes), and the k-gram hashes are scrambled again, so that the
minimum of a window — what winnowing keeps — is a fair random choice.
"""

from __future__ import annotations

import numpy as np

_BASE = np.uint64(0x100000001B3)  # an odd multiplier; any odd value is invertible mod 2^64
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN_INT = 0x9E3779B97F4A7C15
_MASK = 0xFFFFFFFFFFFFFFFF
_R30, _R27, _R31 = np.uint64(30), np.uint64(27), np.uint64(31)


def mix64(values: np.ndarray, salt: int = 0) -> np.ndarray:
    """SplitMix64 finalizer over an array: a bijection that spreads every input bit."""
    # array arithmetic wraps silently; only the scalar is summed in Python, where it would not
    z = values.astype(np.uint64, copy=True)
    z += np.uint64((salt + _GOLDEN_INT) & _MASK)
    z ^= z >> _R30
    z *= _M1
    z ^= z >> _R27
    z *= _M2
    z ^= z >> _R31
    return z


def salt_of(name: str) -> int:
    """A stable 64-bit salt from a name (Python's hash() is randomized per process).

    Lone surrogates (a token of a file decoded with errors kept) are hashed as
    their code units rather than refused.
    """
    value = 0xCBF29CE484222325
    for byte in name.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def _power(base: np.uint64, exponent: int) -> np.uint64:
    return np.uint64(pow(int(base), exponent, 1 << 64))


def kgram_hashes(symbols: np.ndarray, k: int, salt: int = 0) -> np.ndarray:
    """Hash of every k-gram of ``symbols``: element i covers symbols[i : i + k]."""
    if k < 1:
        raise ValueError("k must be at least 1")
    n = symbols.shape[0]
    if n < k:
        return np.zeros(0, dtype=np.uint64)
    x = mix64(symbols, salt)
    result: np.ndarray | None = None  # hashes of all `length`-grams built so far
    length = 0
    block, block_len = x, 1  # hashes of all block_len-grams, block_len = 2^j
    remaining = k
    with np.errstate(over="ignore"):
        while True:
            if remaining & 1:
                if result is None:
                    result, length = block, block_len
                else:
                    m = n - (length + block_len) + 1
                    result = result[:m] * _power(_BASE, block_len) + block[length : length + m]
                    length += block_len
            remaining >>= 1
            if not remaining:
                break
            m = n - 2 * block_len + 1
            block = block[:m] * _power(_BASE, block_len) + block[block_len : block_len + m]
            block_len *= 2
    assert result is not None and length == k
    return mix64(result[: n - k + 1], salt ^ k)
