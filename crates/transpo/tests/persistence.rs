//! Persistence: round trips, and corrupted, truncated or mismatched files rejected with the
//! table left untouched.

use transpo::{
    Bound, ChessEntry, Error, Size, Table,
    entry::{CompactEntry, DenseChessEntry, ResearchEntry},
    persist::TableFile,
    scheme::Scheme,
    table::{Config, Instrumented},
};
use transpo_testkit::scratch;

/// The prefix of this file's scratch directories.
const SCRATCH: &str = "transpo-persist";

fn entry(k: u64) -> ChessEntry {
    ChessEntry {
        mv: k as u16,
        score: (k >> 16) as i16,
        eval: (k >> 32) as i16,
        depth: (k >> 48) as i8,
        bound: Bound::Lower,
        pv: k & 1 == 1,
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

/// The dense layout's cells hold three slots and two bytes of padding: every slot comes
/// back, and a `ChessEntry` table refuses the file.
#[test]
fn dense_tables_round_trip_and_are_their_own_layout() {
    let (chess, keys) = filled(1, 30_000, 3);
    let table = Table::<DenseChessEntry>::with_mib(1).expect("table");
    for &k in &keys {
        if let Some(e) = chess.probe(k) {
            table.store(k, e.into());
        }
    }
    table.new_search();
    let mut file = Vec::new();
    table.save(&mut file).expect("save to memory");
    assert!(file.len() > 1 << 20, "the whole MiB");
    let mut loaded = Table::<DenseChessEntry>::with_mib(1).expect("table");
    loaded.load(file.as_slice()).expect("load");
    let probe = |t: &Table<DenseChessEntry>| keys.iter().map(|&k| t.probe(k)).collect::<Vec<_>>();
    assert_eq!(probe(&loaded), probe(&table));
    assert_eq!(loaded.usage(), table.usage());
    assert!(table.usage().used > 20_000);
    let mut other = Table::<ChessEntry>::with_mib(1).expect("table");
    assert!(matches!(
        other.load(file.as_slice()),
        Err(Error::Mismatch(_))
    ));
}

#[test]
fn table_file_save_and_load_round_trip() {
    let dir = scratch(SCRATCH, "round-trip");
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
    table.save(TableFile(&path)).expect("save");
    let mut loaded = Table::<ResearchEntry>::new(Size::Entries(1 << 12), config).expect("table");
    loaded.load(TableFile(&path)).expect("load");
    for k in 0..3000u64 {
        let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        assert_eq!(loaded.probe(key), table.probe(key));
    }
    assert!(!dir.join("table.tthash.tmp").exists());
    assert!(matches!(
        loaded.load(TableFile(dir.join("missing"))),
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

fn research(k: u64) -> ResearchEntry {
    ResearchEntry {
        mv: k as u16,
        score: (k >> 16) as i16,
        depth: (k % 9) as u8,
        bound: Bound::Exact,
        nodes: k,
    }
}

/// A small research table of `config`, with entries in it.
fn research_table(config: Config) -> Table<ResearchEntry> {
    let table = Table::<ResearchEntry>::new(Size::Entries(1 << 10), config).expect("table");
    for k in 0..2000u64 {
        if k % 500 == 0 {
            table.new_search();
        }
        table.store(k.wrapping_mul(0x9e37_79b9_7f4a_7c15), research(k));
    }
    table
}

fn saved<E: transpo::entry::Entry>(table: &Table<E>) -> Vec<u8> {
    let mut file = Vec::new();
    table.save(&mut file).expect("save to memory");
    file
}

#[test]
fn every_scheme_and_stamping_round_trips_into_the_same_configuration() {
    let schemes = Scheme::PAPER
        .into_iter()
        .chain([Scheme::DepthAge { k: 4 }, Scheme::Priority]);
    for scheme in schemes {
        for stamping in [false, true] {
            let config = Config {
                scheme,
                stamping,
                ..Config::default()
            };
            let table = research_table(config);
            let file = saved(&table);
            // Counting changes no cell, so it may differ.
            let mut loaded = Table::<ResearchEntry>::new(
                Size::Entries(1 << 10),
                Config {
                    counting: true,
                    ..config
                },
            )
            .expect("table");
            loaded.load(file.as_slice()).expect("same configuration");
            for k in 0..2000u64 {
                let key = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                assert_eq!(loaded.probe(key), table.probe(key), "{scheme} {stamping}");
            }
            assert_eq!(loaded.generation(), table.generation());
        }
    }
}

/// A file saved under one replacement scheme or time stamping means something else to a
/// table of another (a TWODEEP table keeps its deeper entry first, stamping reads ages), so
/// it is a mismatch, and the table is left as it was.
#[test]
fn a_file_of_another_scheme_or_stamping_is_rejected() {
    let base = Config {
        scheme: Scheme::TwoBig1,
        stamping: true,
        ..Config::default()
    };
    let file = saved(&research_table(base));
    let others = [
        Config {
            scheme: Scheme::TwoDeep,
            ..base
        },
        Config {
            stamping: false,
            ..base
        },
        Config {
            scheme: Scheme::DepthAge { k: 8 },
            ways: Some(2),
            ..base
        },
        Config {
            scheme: Scheme::Priority,
            ways: Some(2),
            ..base
        },
    ];
    for config in others {
        let mut table = research_table(config);
        let before = saved(&table);
        let err = table
            .load(file.as_slice())
            .expect_err("another configuration");
        assert!(
            matches!(&err, Error::Mismatch(m) if m.contains("scheme twobig1 with time stamping")),
            "{config:?}: {err}"
        );
        assert_eq!(
            saved(&table),
            before,
            "a failed load must not touch the table"
        );
    }
    // DEPTH-AGE's weight is part of the scheme.
    let k4 = Config {
        scheme: Scheme::DepthAge { k: 4 },
        ..Config::default()
    };
    let file = saved(&Table::<ChessEntry>::new(Size::Mib(1), k4).expect("table"));
    let mut k8 = Table::<ChessEntry>::with_mib(1).expect("table");
    let err = k8.load(file.as_slice()).expect_err("another k");
    assert!(err.to_string().contains("depth-age-4"), "{err}");
}

#[test]
fn a_version_1_file_is_rejected_with_a_reason() {
    let (table, _) = filled(1, 100, 1);
    let mut file = saved(&table);
    file[8..12].copy_from_slice(&1u32.to_le_bytes());
    let err = rejected(&file);
    assert!(
        matches!(&err, Error::Mismatch(m) if m.contains("version 1") && m.contains("save the table again")),
        "{err}"
    );
    assert_eq!(transpo::persist::FORMAT_VERSION, 2);
}

#[test]
fn a_bad_scheme_name_or_stamping_flag_is_corrupt() {
    let (table, _) = filled(1, 100, 1);
    let file = saved(&table);
    let layout_end = 16 + "chess-xor2-v1".len();
    let scheme_len = u32::from_le_bytes(file[layout_end..layout_end + 4].try_into().expect("4"));
    let scheme_start = layout_end + 4;
    assert_eq!(
        &file[scheme_start..scheme_start + scheme_len as usize],
        b"depth-age-8"
    );
    let mut upper = file.clone();
    upper[scheme_start..scheme_start + 5].copy_from_slice(b"DEPTH");
    assert!(matches!(rejected(&upper), Error::Corrupt(m) if m.contains("scheme")));
    let mut long = file.clone();
    long[layout_end..layout_end + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(rejected(&long), Error::Corrupt(m) if m.contains("scheme name")));
    let mut flag = file.clone();
    flag[scheme_start + scheme_len as usize] = 2;
    assert!(matches!(rejected(&flag), Error::Corrupt(m) if m.contains("stamping")));
}

/// Endless and random inputs are rejected at once, without reading them to the end.
#[test]
fn dev_zero_and_dev_urandom_are_rejected_quickly() {
    for device in ["/dev/zero", "/dev/urandom"] {
        if !std::path::Path::new(device).exists() {
            continue;
        }
        let (mut table, keys) = filled(1, 1000, 3);
        let before = snapshot(&table, &keys);
        let start = std::time::Instant::now();
        let err = table.load(TableFile(device)).expect_err(device);
        assert!(matches!(err, Error::Corrupt(_)), "{device}: {err}");
        let err = table
            .load(std::fs::File::open(device).expect("open"))
            .expect_err(device);
        assert!(matches!(err, Error::Corrupt(_)), "{device}: {err}");
        assert!(
            start.elapsed().as_secs() < 5,
            "{device}: {:?}",
            start.elapsed()
        );
        assert_eq!(snapshot(&table, &keys), before);
    }
}

/// An input with a valid header followed by endless bytes: the loader reads what the header
/// promised and one byte more, then stops.
#[test]
fn an_endless_input_after_a_valid_header_is_read_only_as_far_as_the_header_says() {
    struct Endless<'a> {
        head: &'a [u8],
        read: u64,
    }
    impl std::io::Read for Endless<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = if self.head.is_empty() {
                buf.fill(0x5a);
                buf.len()
            } else {
                let n = self.head.len().min(buf.len());
                buf[..n].copy_from_slice(&self.head[..n]);
                self.head = &self.head[n..];
                n
            };
            self.read += n as u64;
            Ok(n)
        }
    }
    let (mut table, _) = filled(1, 100, 1);
    let file = saved(&table);
    let mut input = Endless {
        head: &file[..file.len() / 2],
        read: 0,
    };
    let err = table.load(&mut input).expect_err("endless");
    assert!(err.to_string().contains("checksum"), "{err}");
    // The loader reads through an 8 KiB buffer, so it may have asked for one buffer more.
    assert!(
        input.read <= file.len() as u64 + 8192,
        "read {} bytes of a {}-byte table file",
        input.read,
        file.len()
    );
}

#[test]
fn a_file_of_the_wrong_length_or_a_directory_is_rejected_before_its_entries_are_read() {
    let dir = scratch(SCRATCH, "len");
    let (table, keys) = filled(1, 5000, 5);
    let file = saved(&table);
    let path = dir.join("t.tthash");
    let mut loaded = Table::<ChessEntry>::with_mib(1).expect("table");
    for (bytes, words) in [
        (&file[..file.len() - 100], "truncated file"),
        (
            &[file.as_slice(), &[0; 9]].concat()[..],
            "after the checksum",
        ),
    ] {
        std::fs::write(&path, bytes).expect("write");
        let err = loaded.load(TableFile(&path)).expect_err("wrong length");
        assert!(err.to_string().contains(words), "{err}");
        assert!(err.to_string().contains("header needs"), "{err}");
    }
    assert!(
        matches!(loaded.load(TableFile(&dir)), Err(Error::Corrupt(m)) if m.contains("directory"))
    );
    std::fs::write(&path, &file).expect("write");
    loaded.load(TableFile(&path)).expect("the whole file");
    assert_eq!(snapshot(&loaded, &keys), snapshot(&table, &keys));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// The names in `dir`, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Saving to the file `x` must not write a fixed `x.tmp` with `File::create`, which would
/// follow a link planted there (overwriting its target with table data, then renaming the
/// link over `x`) and consume a file of the user's under that name.
#[cfg(unix)]
#[test]
fn saving_a_table_file_never_writes_through_a_planted_link_or_consumes_a_tmp_file() {
    let dir = scratch(SCRATCH, "links");
    std::fs::write(dir.join("victim"), "precious").expect("write");
    std::os::unix::fs::symlink(dir.join("victim"), dir.join("x.tmp")).expect("symlink");
    std::fs::write(dir.join("notes.tmp"), "my notes").expect("write");
    let (table, keys) = filled(1, 2000, 7);
    table.save(TableFile(dir.join("x"))).expect("save x");
    table
        .save(TableFile(dir.join("notes")))
        .expect("save notes");
    assert_eq!(
        std::fs::read_to_string(dir.join("victim")).expect("read"),
        "precious"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.tmp")).expect("read"),
        "my notes"
    );
    assert!(
        std::fs::symlink_metadata(dir.join("x.tmp"))
            .expect("the link is still there")
            .is_symlink()
    );
    for name in ["x", "notes"] {
        let path = dir.join(name);
        assert!(
            std::fs::symlink_metadata(&path).expect("stat").is_file(),
            "{name}"
        );
        let mut loaded = Table::<ChessEntry>::with_mib(1).expect("table");
        loaded.load(TableFile(&path)).expect("load");
        assert_eq!(snapshot(&loaded, &keys), snapshot(&table, &keys));
    }
    assert_eq!(
        entries(&dir),
        ["notes", "notes.tmp", "victim", "x", "x.tmp"]
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A save that fails (the path a directory, or ending in `/`) leaves no table-sized
/// temporary file behind.
#[test]
fn a_failed_save_to_a_directory_leaves_no_temporary_file() {
    let dir = scratch(SCRATCH, "dir");
    std::fs::create_dir(dir.join("sub")).expect("mkdir");
    let (table, _) = filled(1, 100, 3);
    let err = table
        .save(TableFile(dir.join("sub")))
        .expect_err("a directory");
    assert!(matches!(err, Error::Io(_)), "{err}");
    let mut slash = dir.join("sub").into_os_string();
    slash.push("/");
    assert!(table.save(TableFile(&slash)).is_err());
    assert_eq!(entries(&dir), ["sub"]);
    assert!(entries(&dir.join("sub")).is_empty());
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// Loading a FIFO must not block in `open` until a writer comes: it is refused at once,
/// naming what it is, and the table is untouched. Saving to a FIFO (or a device:
/// `/dev/null`) would rename the table over it; that is refused too.
#[cfg(unix)]
#[test]
fn a_fifo_is_neither_loaded_nor_replaced() {
    let dir = scratch(SCRATCH, "fifo");
    let fifo = dir.join("f");
    transpo_testkit::mkfifo(&fifo);
    let (sender, receiver) = std::sync::mpsc::channel();
    let path = fifo.clone();
    std::thread::spawn(move || {
        let (mut table, keys) = filled(1, 1000, 11);
        let before = snapshot(&table, &keys);
        let result = table.load(TableFile(&path)).map_err(|e| e.to_string());
        let _ = sender.send((result, snapshot(&table, &keys) == before));
    });
    let (result, untouched) = receiver
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("loading a FIFO table file must return at once, not wait for a writer");
    let err = result.expect_err("a FIFO is not a table file");
    assert!(err.contains("FIFO"), "{err}");
    assert!(untouched);
    // Nor is a FIFO replaced by a save (a rename over it would make it a regular file).
    let (table, _) = filled(1, 100, 3);
    let err = table
        .save(TableFile(&fifo))
        .expect_err("a FIFO is not replaced");
    assert!(err.to_string().contains("FIFO"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("stat")
            .file_type()
            .is_fifo()
    );
    assert_eq!(entries(&dir), ["f"]);
    std::fs::remove_dir_all(&dir).expect("clean up");
}
