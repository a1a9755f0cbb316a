//! A whole UCI session: any bytes, as lines, through `transpo_chess::uci::run`, the loop the
//! `transpo-chess` binary runs on stdin.
//!
//! To keep each run short and harmless the target rewrites a few commands before the engine
//! sees them (everything else goes through as it came, invalid UTF-8 included):
//! - the session starts with `setoption name Hash value 1`, and `Hash` is capped at 2 MiB and
//!   `Threads` at 2;
//! - every `go ...` becomes `go depth 2` or `go nodes 1000` (the first byte of the line
//!   picks), so no search runs long and `run` must stop it at the end of the input;
//! - `perft N` keeps N only up to 2, and `bench` is dropped (it searches a whole suite);
//! - `savehash` and `loadhash` use one scratch file of this process in the temporary
//!   directory, never a path from the input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fuzz_target!(|data: &[u8]| {
    let scratch =
        std::env::temp_dir().join(format!("transpo-fuzz-uci-{}.tthash", std::process::id()));
    let mut session = b"setoption name Hash value 1\n".to_vec();
    for line in data.split(|&b| b == b'\n').take(64) {
        session.extend_from_slice(&rewrite(line, &scratch));
        session.push(b'\n');
    }
    transpo_chess::uci::run(Cursor::new(session), std::io::sink()).expect("writing to a sink");
    // Each run starts without the file, so runs do not depend on each other.
    let _ = std::fs::remove_file(&scratch);
});

/// The line the engine gets for `line`.
fn rewrite(line: &[u8], scratch: &std::path::Path) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(line) else {
        return line.to_vec();
    };
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    match words.first().copied() {
        Some("go") => {
            if line.first().is_some_and(|b| b & 1 == 1) {
                b"go nodes 1000".to_vec()
            } else {
                b"go depth 2".to_vec()
            }
        }
        Some("perft") => match words.get(1).and_then(|d| d.parse::<u32>().ok()) {
            Some(depth) if depth > 2 => b"perft 2".to_vec(),
            _ => line.to_vec(),
        },
        Some("bench") => Vec::new(),
        Some(command @ ("savehash" | "loadhash")) => {
            format!("{command} {}", scratch.display()).into_bytes()
        }
        Some("setoption") => {
            // `setoption name Hash value N` or `... Threads value N`, any case: N at most 2.
            let name = lower.iter().position(|w| w == "name").map(|i| i + 1);
            let value = lower.iter().position(|w| w == "value").map(|i| i + 1);
            let (Some(name), Some(value)) = (name, value) else {
                return line.to_vec();
            };
            let capped = matches!(
                lower.get(name).map(String::as_str),
                Some("hash" | "threads")
            );
            match words.get(value).map(|v| v.parse::<u64>()) {
                Some(Ok(n)) if capped && n > 2 => {
                    format!("setoption name {} value 2", words[name]).into_bytes()
                }
                _ => line.to_vec(),
            }
        }
        _ => line.to_vec(),
    }
}
