//! A whole UCI session: any bytes, as lines, through `transpo_engine::uci::run_with_limits`,
//! the loop the `transpo-chess` binary runs on stdin (`uci::run` is it with the engine's own
//! limits).
//!
//! The engine's fuzzing limits (`SessionLimits::fuzz`) keep every command short: a 1 MiB
//! table, 2 threads, at most 2,000 nodes per `go` (whatever its arguments: `infinite`,
//! `ponder` and clocks included), perft depth 3, bench depth 1; and at the end of the input
//! the session stops and joins any running command before `run_with_limits` returns. Files
//! stay allowed, so that `BookFile`, `savehash`, `loadhash` and the `HashFile` buttons are
//! exercised, but the target points `savehash`, `loadhash` and `HashFile` at one scratch file
//! of this process in the temporary directory (never a path from the input) and removes it
//! after each run. At most 64 lines of an input are used.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;
use transpo_engine::uci::{SessionLimits, run_with_limits};

fuzz_target!(|data: &[u8]| {
    let scratch =
        std::env::temp_dir().join(format!("transpo-fuzz-uci-{}.tthash", std::process::id()));
    let mut session = Vec::new();
    for line in data.split(|&b| b == b'\n').take(64) {
        session.extend_from_slice(&rewrite(line, &scratch));
        session.push(b'\n');
    }
    let limits = SessionLimits {
        files: true,
        ..SessionLimits::fuzz()
    };
    run_with_limits(Cursor::new(session), std::io::sink(), limits).expect("writing to a sink");
    // Each run starts without the file, so runs do not depend on each other.
    let _ = std::fs::remove_file(&scratch);
});

/// The line the engine gets for `line`: `savehash`/`loadhash` with the scratch file; any
/// line that mentions `HashFile` (in any case, valid UTF-8 or not) sets it to the scratch
/// file; any other line as it came (invalid UTF-8 included).
fn rewrite(line: &[u8], scratch: &std::path::Path) -> Vec<u8> {
    let names_hash_file = line
        .windows(b"hashfile".len())
        .any(|w| w.eq_ignore_ascii_case(b"hashfile"));
    if names_hash_file {
        return format!("setoption name HashFile value {}", scratch.display()).into_bytes();
    }
    let command = std::str::from_utf8(line)
        .ok()
        .and_then(|text| text.split_ascii_whitespace().next());
    match command {
        Some(command @ ("savehash" | "loadhash")) => {
            format!("{command} {}", scratch.display()).into_bytes()
        }
        _ => line.to_vec(),
    }
}
