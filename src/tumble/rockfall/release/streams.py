"""The first draws of many rocks' random streams at once, the same numbers as one stream each.

Rock ``k`` of a release draws from ``numpy.random.default_rng(SeedSequence(seed,
spawn_key=(k,)))`` (:func:`tumble.rockfall.release.rock_rng`). Building that generator costs
about 10 microseconds a rock in Python, most of a million-rock release. :func:`first_uniforms`
gives the first ``m`` uniforms of every rock's stream with whole-array integer arithmetic,
bit for bit those of the generator (``tests/rockfall/release/test_streams.py`` compares them):

1. NumPy's ``SeedSequence`` (after M. E. O'Neill's ``seed_seq_fe``): the entropy is the seed's
   32-bit words, little end first, padded with zero words to the pool size 4, then rock ``k``
   as one word; the pool of 4 words is hashed from it (``hashmix``: xor with a running hash
   constant, multiply, xor-shift by 16 bits; ``mix``: ``L x - R y``, xor-shift), and
   ``generate_state(4, uint64)`` draws eight words from the pool with a second constant.
2. ``PCG64`` (O'Neill 2014, the 128-bit LCG with the XSL-RR output): state and increment from
   those four 64-bit words (``pcg64_set_seed``: increment ``2 s + 1``, one step, state added,
   one step), then per draw one step ``state <- a state + c`` mod 2^128 and the output
   ``rotr(hi ^ lo, hi >> 58)``.
3. ``Generator.random``: ``(u >> 11) 2^-53``.

All words are uint32 or uint64 arrays whose products wrap, as in NumPy's C code. The hash
constants do not depend on the data, so they are the same for every rock.

Citations: M. E. O'Neill, PCG: a family of simple fast space-efficient statistically good
algorithms for random number generation, HMC-CS-2014-0905 (2014); NumPy's
``numpy/random/bit_generator.pyx`` (SeedSequence) and ``_pcg64.pyx`` (PCG64) define the
algorithm reproduced here.
"""

from __future__ import annotations

import numpy as np

POOL_SIZE = 4
INIT_A = 0x43B0D7E5
MULT_A = 0x931E8875
INIT_B = 0x8B51F9DD
MULT_B = 0x58F38DED
MIX_MULT_L = 0xCA01F9DD
MIX_MULT_R = 0x4973F715
MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
#: PCG64's multiplier (PCG_DEFAULT_MULTIPLIER_128), high and low 64 bits
PCG_MULT = (2549297995355413924, 4865540595714422341)

_U32 = np.uint32
_U64 = np.uint64


def _words(value: int) -> list[int]:
    """``value`` (>= 0) as 32-bit words, the least significant first; ``[0]`` for 0."""
    words = []
    while True:
        words.append(value & MASK32)
        value >>= 32
        if value == 0:
            return words


class _Hash:
    """The running hash constant of ``hashmix``: the same sequence for every rock."""

    def __init__(self) -> None:
        self.value = INIT_A

    def mix(self, value: np.ndarray) -> np.ndarray:
        value = value ^ _U32(self.value)
        self.value = (self.value * MULT_A) & MASK32
        value = value * _U32(self.value)
        return value ^ (value >> _U32(16))


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result: np.ndarray = _U32(MIX_MULT_L) * x - _U32(MIX_MULT_R) * y
    return result ^ (result >> _U32(16))


def _pool(seed: int, rocks: np.ndarray) -> list[np.ndarray]:
    """The 4-word pool of ``SeedSequence(seed, spawn_key=(k,))`` for each ``k`` of ``rocks``."""
    n = rocks.shape[0]
    run = _words(seed)
    if len(run) < POOL_SIZE:
        run += [0] * (POOL_SIZE - len(run))
    entropy = [np.full(n, w, dtype=_U32) for w in run] + [rocks.astype(_U32)]
    hash_ = _Hash()
    pool = [hash_.mix(entropy[i]) for i in range(POOL_SIZE)]
    for i_src in range(POOL_SIZE):
        for i_dst in range(POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], hash_.mix(pool[i_src]))
    for i_src in range(POOL_SIZE, len(entropy)):
        for i_dst in range(POOL_SIZE):
            pool[i_dst] = _mix(pool[i_dst], hash_.mix(entropy[i_src]))
    return pool


def _state_words(pool: list[np.ndarray]) -> list[np.ndarray]:
    """``generate_state(4, uint64)`` of the pool: four uint64 words per rock."""
    constant = INIT_B
    words = []
    for i in range(8):
        value = pool[i % POOL_SIZE] ^ _U32(constant)
        constant = (constant * MULT_B) & MASK32
        value = value * _U32(constant)
        words.append(value ^ (value >> _U32(16)))
    return [
        words[2 * i].astype(_U64) | (words[2 * i + 1].astype(_U64) << _U64(32)) for i in range(4)
    ]


def _mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit products ``a b``."""
    m32 = _U64(MASK32)
    a_lo, a_hi = a & m32, a >> _U64(32)
    b_lo, b_hi = b & m32, b >> _U64(32)
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    middle = (p0 >> _U64(32)) + (p1 & m32) + (p2 & m32)
    return p3 + (p1 >> _U64(32)) + (p2 >> _U64(32)) + (middle >> _U64(32))


class _Pcg64:
    """PCG64 states of many rocks: 128-bit state and increment as (high, low) uint64 arrays."""

    def __init__(self, words: list[np.ndarray]) -> None:
        seed_hi, seed_lo, seq_hi, seq_lo = words
        self.inc_hi = (seq_hi << _U64(1)) | (seq_lo >> _U64(63))
        self.inc_lo = (seq_lo << _U64(1)) | _U64(1)
        self.hi = np.zeros_like(seed_hi)
        self.lo = np.zeros_like(seed_lo)
        self._step()
        self.hi, self.lo = self._add(self.hi, self.lo, seed_hi, seed_lo)
        self._step()

    @staticmethod
    def _add(
        a_hi: np.ndarray, a_lo: np.ndarray, b_hi: np.ndarray, b_lo: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        lo = a_lo + b_lo
        return a_hi + b_hi + (lo < a_lo).astype(_U64), lo

    def _step(self) -> None:
        m_hi, m_lo = _U64(PCG_MULT[0]), _U64(PCG_MULT[1])
        hi = _mulhi(self.lo, np.full_like(self.lo, m_lo)) + self.lo * m_hi + self.hi * m_lo
        lo = self.lo * m_lo
        self.hi, self.lo = self._add(hi, lo, self.inc_hi, self.inc_lo)

    def next64(self) -> np.ndarray:
        self._step()
        value = self.hi ^ self.lo
        rotation = self.hi >> _U64(58)
        return (value >> rotation) | (value << ((_U64(64) - rotation) & _U64(63)))


def first_uniforms(seed: int, rocks: np.ndarray, m: int) -> np.ndarray:
    """``(len(rocks), m)``: the first ``m`` values of ``rock_rng(seed, k).random()`` for each
    rock ``k`` of ``rocks`` (module docstring). ``seed`` >= 0; rocks in [0, 2^32)."""
    rocks = np.asarray(rocks, dtype=np.int64)
    if rocks.size and (int(rocks.min()) < 0 or int(rocks.max()) > MASK32):
        raise ValueError("rock numbers of a stream lie in [0, 2^32)")
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    out = np.empty((rocks.shape[0], m))
    with np.errstate(over="ignore"):
        generator = _Pcg64(_state_words(_pool(int(seed), rocks)))
        for column in range(m):
            out[:, column] = (generator.next64() >> _U64(11)) * (1.0 / 9007199254740992.0)
    return out
