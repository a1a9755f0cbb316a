//! The program an engine author writes first. It must build and run with and
//! without the default features: `cargo test -p transpo --no-default-features --test lean`.

use transpo::{ChessEntry, Table};

#[test]
fn the_first_program_builds_and_runs() -> Result<(), transpo::Error> {
    let key = 0x463b_9618_1691_fc9c;
    let t = Table::<ChessEntry>::with_mib(16)?;
    let e = ChessEntry {
        depth: 3,
        ..ChessEntry::default()
    };
    t.store(key, e);
    assert!(t.probe(key).is_some());
    assert_eq!(t.probe(key), Some(e));
    assert_eq!(t.probe(key ^ 1), None);
    Ok(())
}
