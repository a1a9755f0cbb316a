//! Persistence: round trips, and corrupted, truncated or mismatched files rejected with the
//! table left untouched.

use transpo::{Bound, ChessEntry, CompactEntry, Config, Error, ResearchEntry, Scheme, Size, Table};

fn entry(k: u64) -> ChessEntry {
    ChessEntry {
        mv: k as u16,
        score: (k >> 16) as i16,
        eval: (k >> 32) as i16,
        depth: (k >> 48) as u8,
        bound: Bound::Lower,
    }
}

fn filled(mib: u64, n: u64, seed: u64) -> (Table<ChessEntry>, Vec<u64>) {
    let table = Table::<ChessEntry>::with_mib(mib).expect("table");
    let keys: Vec<u64> = (0..n)
        .map(|i| (i + seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seed)
        .collect();
    for (i, &k) in keys.iter().enumerate() {
        if i % 1000 == 0 {
            table.new_search();
        }
        table.store(k, entry(k));
    }
    (table, keys)
}

fn snapshot(table: &Table<ChessEntry>, keys: &[u64]) -> Vec<Option<ChessEntry>> {
    keys.iter().map(|&k| table.probe(k)).collect()
}

#[test]
fn save_and_load_round_trip() {
    let (table, keys) = filled(1, 20_000, 1);
    let mut file = Vec::new();
    table.save(&mut file).expect("save to memory");
    let mut loaded = Table::<ChessEntry>::with_mib(1).expect("table");
    loaded.load(file.as_slice()).expect("load");
    assert_eq!(snapshot(&loaded, &keys), snapshot(&table, &keys));
    assert_eq!(loaded.generation(), table.generation());
    assert_eq!(loaded.hashfull(), table.hashfull());
    assert!(snapshot(&loaded, &keys).iter().flatten().count() > 10_000);
}

#[test]
fn save_file_and_load_file_round_trip() {
    let dir = std::env::temp_dir().join(format!("transpo-persist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("table.tthash");
    let config = Config {
        scheme: Scheme::TwoBig1,
        stamping: true,
        ..Config::default()
    };
    let table = Table::<ResearchEntry>::new(Size::Entries(1 << 12), config).expect("table");
    for k in 0..3000u64 {
        let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        table.store(
            key,
            ResearchEntry {
                mv: 1,
                score: 2,
                depth: (k % 9) as u8,
                bound: Bound::Exact,
                nodes: k,
            },
        );
    }
    table.save_file(&path).expect("save");
    let mut loaded = Table::<ResearchEntry>::new(Size::Entries(1 << 12), config).expect("table");
    loaded.load_file(&path).expect("load");
    for k in 0..3000u64 {
        let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        assert_eq!(loaded.probe(key), table.probe(key));
    }
    assert!(!dir.join("table.tthash.tmp").exists());
    assert!(matches!(
        loaded.load_file(dir.join("missing")),
        Err(Error::Io(_))
    ));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Loads `bytes` into a table holding other data and checks it is rejected and untouched.
fn rejected(bytes: &[u8]) -> Error {
    let (mut table, keys) = filled(1, 5000, 99);
    let before = snapshot(&table, &keys);
    let generation = table.generation();
    let err = table.load(bytes).expect_err("must be rejected");
    assert_eq!(
        snapshot(&table, &keys),
        before,
        "a failed load must not touch the table"
    );
    assert_eq!(table.generation(), generation);
    err
}

#[test]
fn every_flipped_bit_of_the_header_and_a_sample_of_entries_is_rejected() {
    let (table, _) = filled(1, 20_000, 1);
    let mut file = Vec::new();
    table.save(&mut file).expect("save");
    let mut positions: Vec<usize> = (0..64 * 8).collect();
    positions.extend((0..200).map(|i| (i * 7_919_993) % (file.len() * 8)));
    positions.push(file.len() * 8 - 1);
    for bit in positions {
        let mut bad = file.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        let err = rejected(&bad);
        assert!(
            matches!(err, Error::Corrupt(_) | Error::Mismatch(_)),
            "bit {bit}: {err}"
        );
    }
}

#[test]
fn truncated_files_are_rejected() {
    let (table, _) = filled(1, 1000, 1);
    let mut file = Vec::new();
    table.save(&mut file).expect("save");
    for len in [
        0,
        1,
        7,
        8,
        20,
        40,
        60,
        1000,
        file.len() / 2,
        file.len() - 8,
        file.len() - 1,
    ] {
        let err = rejected(&file[..len]);
        assert!(err.to_string().contains("truncated"), "{len}: {err}");
    }
    let mut longer = file.clone();
    longer.push(0);
    assert!(rejected(&longer).to_string().contains("after the checksum"));
}

#[test]
fn mismatched_files_are_rejected() {
    let other_size = Table::<ChessEntry>::with_mib(2).expect("table");
    let mut file = Vec::new();
    other_size.save(&mut file).expect("save");
    assert!(matches!(rejected(&file), Error::Mismatch(m) if m.contains("buckets")));

    let other_layout = Table::<CompactEntry>::with_mib(1).expect("table");
    let mut file = Vec::new();
    other_layout.save(&mut file).expect("save");
    assert!(matches!(rejected(&file), Error::Mismatch(m) if m.contains("layout")));

    assert!(
        matches!(rejected(b"PK\x03\x04 this is a zip"), Error::Corrupt(m) if m.contains("magic"))
    );
}
