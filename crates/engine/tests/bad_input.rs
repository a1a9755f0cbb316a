//! Malformed UCI input: no line makes a session panic, and random sessions end in bounded
//! time (the position library's own bad-input tests are in `transpo-chess`).

use proptest::prelude::*;
use transpo_engine::uci::UciSession;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_lines_never_panic(text in any::<String>()) {
        let mut session = UciSession::new();
        let mut out = Vec::new();
        session.handle_line(&text, &mut out).unwrap();
    }
}

/// Words UCI sessions are made of, for random sessions.
const UCI_WORDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "infinite",
    "ponder",
    "perft",
    "stop",
    "ponderhit",
    "quit",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "Clear",
    "Replacement",
    "Profile",
    "paper",
    "full",
    "OwnBook",
    "true",
    "BookFile",
    "/dev/zero",
    "savehash",
    "loadhash",
    "NeverClearHash",
    "HashFile",
    "SaveHashtoFile",
    "LoadHashfromFile",
    "bench",
    "d",
    "eval",
    "e2e4",
    "e7e5",
    "g1f3",
    "e1g1",
    "a7a8q",
    "0000",
    "0",
    "1",
    "2",
    "3",
    "12",
    "100",
    "-5",
    "1000000",
    "99999999999999999999",
    "8/8/8/8/8/8/8/Kk6",
    "w",
    "b",
    "-",
    "KQkq",
    "e3",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
    "4k3/8/3N1N2/8/8/8/8/4K3",
    "\n",
    "\n",
    "\n",
    "\n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Issue 14: a whole session of random UCI words, through the fuzz entry point, returns
    /// (in bounded time: every command is capped or stopped at the end of input) and
    /// never panics.
    #[test]
    fn random_uci_sessions_end(words in proptest::collection::vec(proptest::sample::select(UCI_WORDS), 0..60)) {
        let input = words.join(" ");
        let start = std::time::Instant::now();
        transpo_engine::uci::run_with_limits(
            input.as_bytes(),
            std::io::sink(),
            transpo_engine::uci::SessionLimits::fuzz(),
        ).unwrap();
        prop_assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}: {input:?}", start.elapsed());
    }
}
