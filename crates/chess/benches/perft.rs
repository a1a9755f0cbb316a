//! Perft speed: plain cozy-chess copy-make, copy-make with the incremental Polyglot key, and
//! `Position` play/undo (key + history), all playing every move (ANCHORS.md §4).
//!
//! `cargo bench -p transpo-chess --bench perft`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use transpo_chess::{Position, perft};

fn perft_variants(c: &mut Criterion) {
    let cases = [
        ("start", transpo_chess::STARTPOS_FEN, 4),
        (
            "kiwipete",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
        ),
    ];
    for (name, fen, depth) in cases {
        let mut pos = Position::from_fen(fen).unwrap();
        let board = pos.board().clone();
        let key = pos.key();
        let nodes = perft::perft_plain_make_all(&board, depth);
        let mut group = c.benchmark_group(format!("perft_{name}_d{depth}"));
        group.throughput(Throughput::Elements(nodes));
        group.bench_function("plain_cozy_copy_make", |b| {
            b.iter(|| perft::perft_plain_make_all(black_box(&board), depth))
        });
        group.bench_function("copy_make_cozy_hash", |b| {
            b.iter(|| perft::perft_plain_hash_make_all(black_box(&board), depth))
        });
        group.bench_function("copy_make_with_key", |b| {
            b.iter(|| perft::perft_keyed_make_all(black_box(&board), key, depth))
        });
        group.bench_function("position_play_undo", |b| {
            b.iter(|| perft::perft_make_all(black_box(&mut pos), depth))
        });
        group.bench_function("position_bulk_leaves", |b| {
            b.iter(|| perft::perft(black_box(&mut pos), depth))
        });
        group.finish();
    }
}

criterion_group!(benches, perft_variants);
criterion_main!(benches);
