//! The table file loader: `Table::load` on any bytes, into small tables of three entry types
//! and configurations (each file can fit at most one of them). A load that fails must leave
//! the table as it was; a load that succeeds must give a table that saves back to exactly
//! the bytes it read, and that probes and stores as usual afterwards.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use transpo::{
    Bound, ChessEntry, Size, Table,
    entry::{Entry, ResearchEntry, SolverEntry},
    scheme::Scheme,
    table::Config,
};

/// The tables files are loaded into (the seeds in `corpus/table_file` fit each of them).
struct Tables {
    /// 8 entries, the default configuration (depth-and-age 8, four ways).
    chess: Table<ChessEntry>,
    /// 4 entries, TWOBIG1 with time stamping.
    research: Table<ResearchEntry>,
    /// 16 entries, one way, always replace.
    solver: Table<SolverEntry>,
}

thread_local! {
    static TABLES: RefCell<Tables> = RefCell::new(Tables {
        chess: Table::new(Size::Entries(8), Config::default()).expect("8 entries"),
        research: Table::new(
            Size::Entries(4),
            Config { scheme: Scheme::TwoBig1, stamping: true, ..Config::default() },
        )
        .expect("4 entries"),
        solver: Table::new(
            Size::Entries(16),
            Config { scheme: Scheme::New, ways: Some(1), ..Config::default() },
        )
        .expect("16 entries"),
    });
}

fuzz_target!(|data: &[u8]| {
    TABLES.with_borrow_mut(|tables| {
        let chess = ChessEntry {
            mv: 1,
            score: -5,
            eval: 3,
            depth: 4,
            bound: Bound::Lower,
            pv: false,
        };
        check(&mut tables.chess, data, chess);
        let research = ResearchEntry {
            mv: 2,
            score: 9,
            depth: 1,
            bound: Bound::Exact,
            nodes: 77,
        };
        check(&mut tables.research, data, research);
        let solver = SolverEntry {
            value: std::num::NonZeroU8::new(5).expect("non-zero"),
        };
        check(&mut tables.solver, data, solver);
    });
});

/// Loads `data` into `table` and checks what the loader promises.
fn check<E: Entry>(table: &mut Table<E>, data: &[u8], entry: E) {
    let before = saved(table);
    match table.load(data) {
        Err(e) => {
            let _ = e.to_string();
            assert_eq!(saved(table), before, "a failed load changed the table: {e}");
        }
        Ok(()) => {
            assert_eq!(
                saved(table),
                data,
                "a loaded table saves back to what it read"
            );
            for key in [0, 1, u64::MAX, 0x463b_9618_1691_fc9c] {
                let _ = table.probe(key);
                table.store(key, entry);
            }
            let _ = table.hashfull();
            table.new_search();
        }
    }
}

fn saved<E: Entry>(table: &Table<E>) -> Vec<u8> {
    let mut bytes = Vec::new();
    table.save(&mut bytes).expect("saving to memory");
    bytes
}
