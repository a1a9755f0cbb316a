#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into corpus/<target>/ (run from anywhere).

The seeds are small, hand-made inputs: valid ones to start the fuzzer inside each format,
and a few broken ones near the edges. Binary seeds are built here from the formats' specs:
the transpo table file (crates/transpo/src/persist.rs), Polyglot books
(crates/chess/src/book.rs) and Connect Four books (crates/connect4/src/book.rs). Their
contents are placeholders (a book's scores are not true scores), which is all a fuzzer needs.
"""

import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parent / "corpus"
M64 = (1 << 64) - 1


def write(target, name, data):
    path = ROOT / target / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def write_all(target, seeds):
    for name, data in seeds.items():
        write(target, name, data)


# --- fen: FEN and EPD text -------------------------------------------------------------
FENS = {
    "startpos.txt": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kiwipete.txt": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "en_passant.txt": "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "promotion.txt": "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "endgame.txt": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "check.txt": "4k3/8/8/8/8/8/4q3/4K3 w - - 10 40",
    "stalemate.txt": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "no_clocks.txt": "8/8/8/8/8/8/8/K6k w - -",
    "epd_bm.txt": "r1bqk1r1/1p1p1n2/p1n2pN1/2p1b2Q/2P1Pp2/1PN5/PB4PP/R4RK1 w q - bm Rxf4; id \"ERET 001\";",
    "epd_perft.txt": "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66",
    "epd_clocks.txt": "8/8/8/8/8/8/8/K6k b - - hmvc 99; fmvn 200;",
    "bad_castling.txt": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
    "bad_ep.txt": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
    "two_kings.txt": "kk6/8/8/8/8/8/8/K7 w - - 0 1",
    "pawn_on_back_rank.txt": "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "side_not_to_move_in_check.txt": "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1",
    "short_rank.txt": "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
}
write_all("fen", FENS)

# --- uci: sessions (the engine's fuzzing limits cap go, perft, bench, Hash, Threads) -----
UCI = {
    "handshake.txt": "uci\nisready\nucinewgame\nisready\nquit\n",
    "game.txt": "uci\nposition startpos moves e2e4 e7e5 g1f3 b8c6\ngo depth 3\nisready\n"
    "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5\ngo wtime 1000 btime 1000 winc 10 binc 10\n",
    "fen_position.txt": "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 moves e1g1\nd\neval\ngo nodes 500\n",
    "options.txt": "setoption name Hash value 2\nsetoption name Threads value 2\n"
    "setoption name Replacement value twobig1\nsetoption name Profile value paper\n"
    "setoption name Move Overhead value 0\nsetoption name Clear Hash\ngo depth 2\n",
    "perft.txt": "position startpos\nperft 2\nposition fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1\nperft 1\n",
    "hash_file.txt": "go depth 2\nsavehash x\nucinewgame\nloadhash x\nsetoption name Replacement value deep\nloadhash x\n",
    "ponder.txt": "position startpos moves d2d4\ngo ponder\nponderhit\nstop\ngo infinite\nstop\n",
    "mate.txt": "position fen 7k/5Q2/6K1/8/8/8/8/8 w - - 0 1\ngo depth 2\nposition fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\ngo depth 2\n",
    "errors.txt": "position startpos moves e2e5\nposition fen 8/8/8\ngo depth x\nsetoption name Hash value -1\nperft 99\nfoo\n\n",
    "book_option.txt": "setoption name OwnBook value true\nsetoption name BookFile value /nonexistent.bin\ngo depth 1\n",
    "go_forms.txt": "go movetime 50\ngo wtime 100 btime 100 movestogo 5\ngo mate 2\ngo perft 2\ngo infinite\n"
    "stop\nbench 1\nsetoption name Threads value 2\ngo nodes 100000\n",
}
write_all("uci", UCI)

# --- c4_lines: transpo-c4 input lines --------------------------------------------------
C4 = {
    "solved.txt": "2252576253462244111563365343671351441 -1\n",
    "many.txt": "2252576253462244111563365343671351441\n22525762534622441115633653436713514 0\n"
    "1212121\n",
    "empty_board.txt": "-\n",
    "near_full.txt": "12345671234567123456712345677654321765432\n",
    "bad_lines.txt": "\n44a4\n408\n4444444\n1212121\n44 x\n44 1 2\n"
    "121212343434565656212121434343656565777777\n",
    "opening.txt": "4\n44\n4453\n",
}
write_all("c4_lines", C4)

# --- polyglot_book: 16-byte big-endian entries, sorted by key --------------------------
START = 0x463B96181691FC9C  # Polyglot key of the start position
AFTER_E4 = 0x823C9B50FD114196  # after 1. e4


def polyglot_move(frm, to, promo=0):
    """Polyglot move bits: to file, to rank, from file, from rank, promotion."""
    def square(name):
        return ord(name[0]) - ord("a"), int(name[1]) - 1
    ff, fr = square(frm)
    tf, tr = square(to)
    return tf | tr << 3 | ff << 6 | fr << 9 | promo << 12


def polyglot(entries):
    return b"".join(struct.pack(">QHHI", *e) for e in sorted(entries, key=lambda e: e[0]))


write("polyglot_book", "start.bin", polyglot([
    (START, polyglot_move("e2", "e4"), 100, 0),
    (START, polyglot_move("d2", "d4"), 80, 0),
    (START, polyglot_move("g1", "f3"), 0, 7),
    (AFTER_E4, polyglot_move("e7", "e5"), 50, 0),
    (AFTER_E4, polyglot_move("c7", "c5"), 50, 0),
]))
write("polyglot_book", "castling_and_collision.bin", polyglot([
    (1, polyglot_move("e1", "h1"), 1, 0),
    (START, polyglot_move("e2", "e5"), 10, 0),  # illegal there: a key collision
    (M64, polyglot_move("a7", "a8", 4), 1, 0),
]))
write("polyglot_book", "empty.bin", b"")
write("polyglot_book", "unsorted.bin", struct.pack(">QHHI", 5, 796, 1, 0) + struct.pack(">QHHI", 4, 796, 1, 0))
write("polyglot_book", "partial.bin", polyglot([(START, 796, 1, 0)])[:-3])


# --- table_file: transpo table files (format version 2) --------------------------------
def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def checksum(data):
    """persist.rs's Checksum: every 8-byte word and then the zero-padded tail and the length."""
    state = 0
    def mix(word):
        nonlocal state
        state = rotl(((state ^ word) * 0x9E3779B97F4A7C15) & M64, 29)
    whole = len(data) // 8 * 8
    for i in range(0, whole, 8):
        mix(struct.unpack_from("<Q", data, i)[0])
    mix(int.from_bytes(data[whole:].ljust(8, b"\0"), "little"))
    mix(len(data))
    return state


def table_file(layout, scheme, stamping, cell_bytes, ways, buckets, generation, cells):
    head = b"TRANSPO\0" + struct.pack("<II", 2, len(layout)) + layout.encode()
    head += struct.pack("<I", len(scheme)) + scheme.encode() + bytes([stamping])
    head += struct.pack("<IIQI", cell_bytes, ways, buckets, generation)
    assert len(cells) == cell_bytes * ways * buckets
    body = head + cells
    return body + struct.pack("<Q", checksum(body))


def words(*values):
    return b"".join(struct.pack("<Q", v & M64) for v in values)


# The fuzz target's tables: chess 8 entries (depth-age-8, 4 ways), research 4 entries
# (twobig1, stamping, 2 ways), solver 16 entries (new, 1 way).
chess_cells = words(0x1234 ^ 0x0300_0C04_0003_0001, 0x0300_0C04_0003_0001) + bytes(16 * 7)
write("table_file", "chess_empty.table", table_file("chess-xor2-v1", "depth-age-8", 0, 16, 4, 2, 0, bytes(128)))
write("table_file", "chess_one_entry.table", table_file("chess-xor2-v1", "depth-age-8", 0, 16, 4, 2, 5, chess_cells))
write("table_file", "research.table", table_file(
    "research-xor3-v1", "twobig1", 1, 24, 2, 2, 70,
    words(7 ^ 0x0100_0002_0009_0002 ^ 77, 0x0100_0002_0009_0002, 77) + bytes(72)))
write("table_file", "solver.table", table_file(
    "solver-u32-v1", "new", 0, 4, 1, 16, 0,
    b"".join(struct.pack("<I", (i * 0x01010101) & 0xFFFFFFFF) for i in range(16))))
write("table_file", "wrong_scheme.table", table_file("chess-xor2-v1", "priority", 0, 16, 4, 2, 0, bytes(128)))
write("table_file", "version_1.table", b"TRANSPO\0" + struct.pack("<I", 1) + bytes(40))
write("table_file", "truncated.table", table_file("chess-xor2-v1", "depth-age-8", 0, 16, 4, 2, 0, bytes(128))[:90])


# --- c4_book: Connect Four books ------------------------------------------------------
WIDTH, HEIGHT, H1 = 7, 6, 7
BOTTOM = sum(1 << (c * H1) for c in range(WIDTH))


def c4_keys(seq):
    """Symmetric key of the position after `seq` (1-based columns), as position.rs computes."""
    def key(cols):
        current = mask = 0
        for c in cols:
            current ^= mask
            mask |= (mask + (1 << (c * H1))) & (((1 << HEIGHT) - 1) << (c * H1))
        return current + mask + BOTTOM
    cols = [int(ch) - 1 for ch in seq]
    return min(key(cols), key([WIDTH - 1 - c for c in cols]))


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & M64
    return h


def c4_book(depth, entries):
    entries = sorted(dict(entries).items())
    body = b"TC4BOOK\n" + struct.pack("<I", 1) + bytes([7, 6, depth, 0]) + struct.pack("<Q", len(entries))
    body += b"".join(struct.pack("<Q", k) for k, _ in entries)
    body += bytes(s & 0xFF for _, s in entries)
    return body + struct.pack("<Q", fnv1a(body))


lines = ["", "1", "2", "3", "4", "44", "43", "45", "11", "4444", "4455", "1234"]
write("c4_book", "small.book", c4_book(4, [(c4_keys(s), (len(s) * 3) % 43 - 21) for s in lines]))
write("c4_book", "empty.book", c4_book(0, []))
write("c4_book", "bad_checksum.book", c4_book(1, [(c4_keys("4"), 2)])[:-1] + b"\0")
write("c4_book", "header_only.book", c4_book(2, [(c4_keys("4"), 2), (c4_keys("44"), -1)])[:24])
