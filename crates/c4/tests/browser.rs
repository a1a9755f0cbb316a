//! `transpo-c4 serve`'s page in a real browser: the server binary on a free port of
//! 127.0.0.1, driven through chromedriver and headless Chromium. The page's column scores are
//! checked against the library's own [`Solver`] for a position loaded from the address, after
//! clicks, after Undo, after a key, with the weak switch, after the solver's own move; then
//! the move link, a finished game (no solve), New game, the empty board and a bad `?pos=`.
//! Each score's label must carry its words and its kind's swatch, the `--win`, `--draw` or
//! `--loss` of style.css (whose colours tests/palette.rs checks). Then the keyboard (Tab to a
//! column, arrows, Enter, U, Tab on to the "Show scores" switch, a visible focus ring), and
//! scores off: no score anywhere, no solve asked, moves still played, the choice
//! kept for the next visit, the solver's own move still made. A screenshot goes to
//! `<target dir>/browser/connect4.png` (the README's `docs/serve.png` is a copy).
//!
//! A second test serves another board, `--board 6x7`, and checks that the page draws the
//! board /api/health names and shows `Solver::<6, 7>`'s scores; a third serves `--weak`
//! and checks that the page's weak switch and the scores it shows agree.
//!
//! Without Chromium or chromedriver the tests say "browser test skipped: …" and pass,
//! unless `CI=true`, where they fail (CI installs them: `.ci/run`).
//!
//! The positions are mid-game ones that solve in seconds on one thread and a 16 MiB table,
//! and the empty board, which the server answers from its built-in book; the page's scores for
//! it are checked against the published ones, not against a solve of minutes.

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
const WIDTH: usize = transpo_connect4::Position::WIDTH;
use transpo_connect4::{Position, Solver, Strength, position, solver};

/// The longest any one wait may take: the server starting, chromedriver starting, a solve.
const WAIT: Duration = Duration::from_secs(60);
/// The whole browser session at most.
const SESSION: Duration = Duration::from_secs(600);

/// The position the test starts from, then the columns it clicks from there.
const START: &str = "4453";
/// The empty board's column scores, from the first player's view, as John Tromp's and
/// Pascal Pons' solvers give them (connect4.gamesolver.org): only the middle column wins.
const EMPTY_BOARD: [Option<i32>; WIDTH] = [
    Some(-2),
    Some(-1),
    Some(0),
    Some(1),
    Some(0),
    Some(-1),
    Some(-2),
];
const CLICKS: [u32; 3] = [4, 4, 5];
/// The other board's test: a 6×7 position whose columns win, draw and lose, solved in well
/// under a second, and the column it clicks then.
const START_6X7: &str = "4334435221";
const CLICK_6X7: u32 = 3;
/// Words that speak of a score: none may show with scores off.
const SCORE_WORDS: [&str; 8] = [
    "win", "wins", "winning", "loss", "loses", "lose", "draw", "best",
];

/// Child processes (each the leader of its own process group), killed with their whole group
/// and waited for when this is dropped: at the end of the test and on a panic alike. Also
/// removes the browser's scratch profile.
#[derive(Default)]
struct Guard {
    children: Vec<(&'static str, Child)>,
    scratch: Option<PathBuf>,
}

impl Guard {
    /// Starts `command` in a process group of its own, so that dropping the guard ends it and
    /// everything it started (chromedriver's browser).
    fn spawn(&mut self, name: &'static str, command: &mut Command) -> &mut Child {
        let child = command
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.children.push((name, child));
        &mut self.children.last_mut().expect("just pushed").1
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        for (name, child) in self.children.iter_mut().rev() {
            // The group's id is the leader's pid (process_group(0)).
            let group = format!("-{}", child.id());
            let killed = Command::new("kill")
                .args(["-KILL", "--", &group])
                .stderr(Stdio::null())
                .status();
            if !matches!(killed, Ok(s) if s.success()) {
                let _ = child.kill();
            }
            match child.wait() {
                Ok(status) => eprintln!("stopped {name} ({status})"),
                Err(e) => eprintln!("waiting for {name}: {e}"),
            }
        }
        if let Some(dir) = self.scratch.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// `name`'s path: `default` if it is there, else the first `name` on PATH.
fn find_program(default: &str, name: &str) -> Option<PathBuf> {
    let default = Path::new(default);
    if default.is_file() {
        return Some(default.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// A TCP port that was free a moment ago on 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Starts `transpo-c4 serve` with `args` on a free port and returns its base address
/// (`http://127.0.0.1:PORT/`), read from the line it prints on stderr before it serves; a
/// thread then passes the rest of its stderr (one line per request) on to ours.
fn start_server(guard: &mut Guard, args: &[&str]) -> String {
    let server = guard.spawn(
        "the server",
        Command::new(env!("CARGO_BIN_EXE_transpo-c4"))
            .args(["serve", "--port", "0", "--threads", "1", "--hash-mib", "16"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let stderr = server.stderr.take().expect("stderr is piped");
    let (address_tx, address_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut address_tx = Some(address_tx);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            eprintln!("server: {line}");
            if let Some(rest) = line.strip_prefix("listening on ") {
                let address = rest.split_whitespace().next().unwrap_or_default();
                if let Some(tx) = address_tx.take() {
                    let _ = tx.send(address.to_string());
                }
            }
        }
    });
    // A server that exits first closes its stderr, and with it the channel: no 60 s wait.
    address_rx.recv_timeout(WAIT).unwrap_or_else(|e| {
        panic!(
            "`serve {}` did not say where it listens ({e}); its stderr is above",
            args.join(" ")
        )
    })
}

/// Starts chromedriver on a free port and returns its address once it accepts connections.
fn start_chromedriver(guard: &mut Guard, chromedriver: &Path) -> String {
    let port = free_port();
    guard.spawn(
        "chromedriver",
        Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit()),
    );
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < WAIT,
            "chromedriver did not listen within 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    format!("http://127.0.0.1:{port}")
}

/// A WebDriver session of headless Chromium (`chromium`'s binary) with a fresh profile in
/// `profile`.
async fn open_browser(webdriver: &str, chromium: &Path, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        &format!("--user-data-dir={}", profile.display()),
        "--window-size=1000,900",
    ];
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_string(),
        json!({ "binary": chromium, "args": args }),
    );
    ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities)
        .connect(webdriver)
        .await
        .expect("a WebDriver session of headless Chromium")
}

/// What the page shows, read in one script: `#board`'s data-state, the status, the move
/// link's text and href, the error (null when hidden), whether the spinner shows and the time
/// beside it, the columns and each one's squares, the discs, each score label's `data-score`,
/// text, kind and drawn background, the swatches of style.css, the verdict and the info line,
/// the "Show scores" switch, the text a reader sees (`innerText`: hidden parts left out), the
/// columns' accessible names, the focused element with its outline, and the solves asked since
/// [`COUNT_SOLVES`] ran.
const SNAPSHOT: &str = r#"
const q = (s) => document.querySelector(s);
const labels = [...document.querySelectorAll('[data-score-col]')]
  .sort((a, b) => a.dataset.scoreCol - b.dataset.scoreCol);
const columns = [...document.querySelectorAll('#board [data-col]')];
const root = getComputedStyle(document.documentElement);
const focused = document.activeElement && document.activeElement !== document.body
  ? document.activeElement : null;
return {
  state: q('#board').dataset.state,
  status: q('#status').textContent,
  moves: q('#moves').textContent,
  href: q('#moves').getAttribute('href'),
  error: q('#error').hidden ? null : q('#error-text').textContent,
  spinner: !q('#spinner').hidden && getComputedStyle(q('#spinner')).display !== 'none',
  elapsed: q('#elapsed').textContent,
  columns: columns.length,
  rows: columns.map((c) => c.querySelectorAll('.cell').length),
  red: document.querySelectorAll('#board .cell.red').length,
  yellow: document.querySelectorAll('#board .cell.yellow').length,
  scores: labels.map((l) => l.dataset.score ?? ''),
  texts: labels.map((l) => l.textContent),
  kinds: labels.map((l) => ['win', 'draw', 'loss'].find((k) => l.classList.contains(k)) ?? ''),
  backgrounds: labels.map((l) => getComputedStyle(l).backgroundColor),
  swatches: Object.fromEntries(['win', 'draw', 'loss']
    .map((k) => [k, root.getPropertyValue('--' + k).trim()])),
  best: document.querySelectorAll('.score.best').length,
  verdict: q('#verdict').textContent,
  info: q('#info').textContent,
  hints: q('#hints').checked,
  text: document.body.innerText,
  names: columns.map((c) => c.getAttribute('aria-label')),
  focus: focused && {
    id: focused.id,
    col: focused.dataset.col ?? null,
    outline: getComputedStyle(focused).outlineStyle + ' ' + getComputedStyle(focused).outlineWidth,
  },
  solves: window.solvesAsked ?? null,
  asked: window.solveUrls ?? null,
  weak: q('#weak').checked,
  url: location.pathname + location.search,
};
"#;

/// Counts the page's requests to /api/solve from now on in `window.solvesAsked`, as they
/// are made (the page calls the global `fetch`), not as they end, and keeps their addresses
/// in `window.solveUrls`.
const COUNT_SOLVES: &str = r#"
window.solvesAsked = 0;
window.solveUrls = [];
const fetch = window.fetch;
window.fetch = (resource, options) => {
  if (String(resource).includes('/api/solve')) {
    window.solvesAsked += 1;
    window.solveUrls.push(String(resource));
  }
  return fetch(resource, options);
};
"#;

/// The page's state, as [`SNAPSHOT`] reads it.
async fn snapshot(client: &Client) -> Value {
    client
        .execute(SNAPSHOT, vec![])
        .await
        .expect("the snapshot script runs")
}

/// Polls the page until `done` holds for its snapshot, and returns that snapshot; panics
/// with the last one after 60 s.
async fn wait_for(client: &Client, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let page = snapshot(client).await;
        if done(&page) {
            return page;
        }
        assert!(
            started.elapsed() < WAIT,
            "waited 60 s for {what}; the page shows {page:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The strong scores of `moves` on 7×6, from `solver`; the empty board's published ones.
fn strong(solver: &mut Solver, moves: &str) -> Vec<Option<i32>> {
    if moves.is_empty() {
        return EMPTY_BOARD.to_vec();
    }
    let pos = Position::from_moves(moves).expect("a valid test position");
    solver.analyze(&pos, Strength::Strong).to_vec()
}

/// `#rrggbb` as the browser writes a computed colour: `rgb(r, g, b)`.
fn css_rgb(hex: &str) -> String {
    let digits = hex
        .strip_prefix('#')
        .filter(|d| d.len() == 6)
        .unwrap_or_else(|| panic!("swatch {hex:?} is not #rrggbb"));
    let channel = |i: usize| {
        u8::from_str_radix(&digits[i..i + 2], 16)
            .unwrap_or_else(|_| panic!("swatch {hex:?} is not #rrggbb"))
    };
    format!("rgb({}, {}, {})", channel(0), channel(2), channel(4))
}

/// Waits until the page shows the scores of `moves`, checks them against `expected` (one per
/// column), each label's words and swatch, the move link, the status and the discs.
async fn check_position(client: &Client, moves: &str, expected: &[Option<i32>]) {
    let shown_moves = if moves.is_empty() {
        "(empty board)"
    } else {
        moves
    };
    let page = wait_for(client, &format!("the scores of {moves:?}"), |p| {
        p["state"] == "ready" && p["moves"] == shown_moves
    })
    .await;
    assert_eq!(page["columns"], expected.len(), "columns drawn");
    for (col, expected) in expected.iter().enumerate() {
        let shown = page["scores"][col]
            .as_str()
            .expect("data-score is a string");
        let text = page["texts"][col].as_str().expect("a label's text");
        match *expected {
            Some(score) => {
                assert_eq!(
                    shown.parse::<i32>().ok(),
                    Some(score),
                    "{moves}: column {}'s data-score (page: {page:#})",
                    col + 1
                );
                assert!(
                    text.contains(&score.abs().to_string()),
                    "{moves}: column {}'s label {text:?} lacks {score}",
                    col + 1
                );
                // The words say what the colour says, for anyone who cannot tell the colours.
                let (kind, words) = match score.signum() {
                    1 => ("win", "wins on move"),
                    0 => ("draw", "draw"),
                    _ => ("loss", "loses on move"),
                };
                assert!(
                    text.contains(words),
                    "{moves}: column {}'s label {text:?} lacks {words:?}",
                    col + 1
                );
                assert_eq!(page["kinds"][col], kind, "{moves}: column {}", col + 1);
                let swatch = page["swatches"][kind].as_str().expect("a swatch");
                assert_eq!(
                    page["backgrounds"][col],
                    css_rgb(swatch),
                    "{moves}: column {} ({kind}) is drawn in --{kind}",
                    col + 1
                );
            }
            None => assert_eq!(shown, "", "{moves}: column {} is full", col + 1),
        }
    }
    assert_eq!(page["href"], format!("/?pos={moves}"), "the move link");
    assert_eq!(page["url"], format!("/?pos={moves}"), "the address bar");
    assert_eq!(page["spinner"], false, "no spinner once solved");
    assert_eq!(page["elapsed"], "", "no time once solved");
    assert_eq!(page["error"], Value::Null, "no error");
    let to_move = if moves.len().is_multiple_of(2) {
        "Red"
    } else {
        "Yellow"
    };
    let status = page["status"].as_str().expect("a status");
    assert!(status.contains(&format!("{to_move} to move")), "{status}");
    let stones = page["red"].as_u64().unwrap_or(0) + page["yellow"].as_u64().unwrap_or(0);
    assert_eq!(stones, moves.len() as u64, "discs on the board");
    eprintln!("page ok: {moves:>8} {:?}", page["scores"]);
}

/// Checks that `page` shows no score: no label's number, words or swatch, no best column,
/// no verdict or info line, no word of a score in the text a reader sees or in a column's
/// name.
fn assert_no_scores(page: &Value) {
    let strings = |key: &str| -> Vec<String> {
        page[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {page:#}"))
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert!(strings("scores").iter().all(String::is_empty), "{page:#}");
    assert!(
        strings("texts").iter().all(|t| t.is_empty() || t == "full"),
        "{page:#}"
    );
    assert!(strings("kinds").iter().all(String::is_empty), "{page:#}");
    assert_eq!(page["best"], 0, "no best column: {page:#}");
    assert_eq!(page["verdict"], "", "{page:#}");
    assert_eq!(page["info"], "", "{page:#}");
    let mut seen = strings("names");
    seen.push(page["text"].as_str().expect("the page's text").to_string());
    for text in &seen {
        let lower = text.to_lowercase();
        let word = lower
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| SCORE_WORDS.contains(w));
        assert_eq!(word, None, "a score's word shows with scores off: {text:?}");
        assert!(
            !text.contains('+'),
            "a signed score shows with scores off: {text:?}"
        );
    }
}

/// Presses `keys` on the focused element (the body when none is), as a person would.
async fn press(client: &Client, keys: &str) {
    client
        .active_element()
        .await
        .expect("the focused element")
        .send_keys(keys)
        .await
        .expect("a key press");
}

/// Presses Tab until the element `#id` has the focus, at most 40 times; returns the snapshot
/// then.
async fn tab_to(client: &Client, id: &str) -> Value {
    for _ in 0..40 {
        press(client, &Key::Tab).await;
        let page = snapshot(client).await;
        if page["focus"]["id"] == id {
            return page;
        }
    }
    panic!("40 presses of Tab never reached #{id}");
}

/// Clicks column `col` (1-based).
async fn click_column(client: &Client, col: u32) {
    client
        .find(Locator::Css(&format!("[data-col=\"{col}\"]")))
        .await
        .expect("the column's element")
        .click()
        .await
        .expect("a click on the column");
}

/// Clicks the element `selector`.
/// The moves after the solver played its move from `moves`, whose columns' scores are
/// `before` (from the side to move), checked to be one of the best columns.
fn solver_move(page: &Value, moves: &str, before: &[Option<i32>]) -> String {
    let played = page["moves"].as_str().expect("the moves").to_string();
    let col = played[moves.len()..]
        .parse::<usize>()
        .expect("a column digit");
    let best = before.iter().flatten().max().copied();
    assert_eq!(before[col - 1], best, "the solver played a best column");
    played
}

async fn click(client: &Client, selector: &str) {
    client
        .find(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("{selector}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("a click on {selector}: {e}"));
}

/// Where the screenshot goes: `<target dir>/browser/connect4.png`, the target directory
/// being the one this test's executable was built in (`<target>/<profile>/deps/…`).
fn screenshot_path() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let target = exe
        .ancestors()
        .nth(3)
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf);
    target.join("browser").join("connect4.png")
}

/// The browser session on 7×6: every check of the page, in order.
async fn drive(client: &Client, base: &str, solver: &mut Solver) {
    let base = base.trim_end_matches('/');

    // A position from the address, then a few clicks, each re-checked.
    client
        .goto(&format!("{base}/?pos={START}"))
        .await
        .expect("the page loads");
    // The page draws the board once /api/health has named its size.
    let page = wait_for(client, "the board drawn", |p| p["columns"] == WIDTH).await;
    assert!(
        page["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .all(|r| r == 6),
        "six squares a column: {page:#}"
    );
    // The first solve takes seconds on one thread: the spinner turns meanwhile, beside the
    // time so far, "solving… 0.4 s".
    assert_eq!(page["state"], "solving", "{page:#}");
    assert_eq!(page["spinner"], true, "the spinner shows while solving");
    let seconds = |page: &Value| -> f64 {
        let elapsed = page["elapsed"].as_str().expect("the time");
        elapsed
            .strip_prefix("solving… ")
            .and_then(|t| t.strip_suffix(" s"))
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("the time while solving: {elapsed:?}"))
    };
    let first = seconds(&page);
    tokio::time::sleep(Duration::from_millis(700)).await;
    let page = snapshot(client).await;
    if page["state"] == "solving" {
        assert!(seconds(&page) > first, "the time runs: {page:#}");
    }
    let mut moves = START.to_string();
    check_position(client, &moves, &strong(solver, &moves)).await;
    for col in CLICKS {
        click_column(client, col).await;
        moves.push_str(&col.to_string());
        check_position(client, &moves, &strong(solver, &moves)).await;
    }

    // Undo takes one move back.
    click(client, "#undo").await;
    moves.pop();
    check_position(client, &moves, &strong(solver, &moves)).await;

    // Keys 1-7 play too: 5 plays the undone move again.
    client
        .find(Locator::Css("body"))
        .await
        .expect("the body")
        .send_keys("5")
        .await
        .expect("a key press");
    moves.push('5');
    check_position(client, &moves, &strong(solver, &moves)).await;

    let link = snapshot(client).await["href"]
        .as_str()
        .expect("the move link's href")
        .to_string();
    let linked = moves.clone();
    let shot = client.screenshot().await.expect("a screenshot");
    let path = screenshot_path();
    std::fs::create_dir_all(path.parent().expect("a file in a directory"))
        .expect("the screenshot's directory");
    std::fs::write(&path, shot).expect("the screenshot written");
    eprintln!("screenshot: {}", path.display());

    // The weak switch: only win / draw / loss, as the weak solver has them; the address
    // keeps it. Then back to strong scores.
    click(client, "#weak").await;
    let page = wait_for(client, "weak scores", |p| {
        p["state"] == "ready" && p["url"] == format!("/?pos={moves}&weak=1")
    })
    .await;
    let pos = Position::from_moves(&moves).expect("a valid test position");
    let weak = solver.analyze(&pos, Strength::Weak);
    for (col, expected) in weak.iter().enumerate() {
        let shown = page["scores"][col]
            .as_str()
            .expect("data-score is a string");
        assert_eq!(
            shown.parse::<i32>().ok(),
            *expected,
            "weak, column {}",
            col + 1
        );
    }
    click(client, "#weak").await;
    check_position(client, &moves, &strong(solver, &moves)).await;

    // The solver plays Yellow, the side to move: a best column once the scores are in.
    let before = solver.analyze(&pos, Strength::Strong);
    click(client, "#solver-plays").await;
    let page = wait_for(client, "the solver's move", |p| {
        p["moves"]
            .as_str()
            .is_some_and(|m| m.len() == moves.len() + 1)
    })
    .await;
    let played = solver_move(&page, &moves, &before);
    check_position(client, &played, &strong(solver, &played)).await;
    // Undo takes back the solver's move and the one before, back to a human's turn; the
    // solver then waits.
    click(client, "#undo").await;
    moves.pop();
    check_position(client, &moves, &strong(solver, &moves)).await;
    click(client, "#solver-plays").await;

    // A finished game: the page says who won and asks no solver.
    client
        .goto(&format!("{base}/?pos=1212121"))
        .await
        .expect("the page loads");
    let page = wait_for(client, "a won game", |p| p["state"] == "over").await;
    assert_eq!(page["status"], "Red wins", "{page:#}");
    assert!(
        page["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .all(|s| s == "")
    );
    assert_eq!(page["spinner"], false, "no solve for a finished game");
    // A click after the end changes nothing.
    click_column(client, 3).await;
    assert_eq!(snapshot(client).await["moves"], "1212121");

    // The move link of a position shown earlier restores it.
    client
        .goto(&format!("{base}{link}"))
        .await
        .expect("the page loads");
    check_position(client, &linked, &strong(solver, &linked)).await;

    // New game: the empty board, Red to move, answered from the server's book.
    click(client, "#new-game").await;
    check_position(client, "", &strong(solver, "")).await;

    // The empty board from the address: the same. Its columns win, draw and lose, so every
    // swatch has been checked against style.css.
    client.goto(base).await.expect("the page loads");
    check_position(client, "", &strong(solver, "")).await;
    let page = snapshot(client).await;
    assert_eq!(page["status"], "Red to move", "{page:#}");
    assert_eq!(
        (page["red"].as_u64(), page["yellow"].as_u64()),
        (Some(0), Some(0))
    );
    for kind in ["win", "draw", "loss"] {
        assert!(
            page["kinds"]
                .as_array()
                .expect("kinds")
                .contains(&json!(kind)),
            "a {kind} on the empty board: {page:#}"
        );
    }

    // A bad ?pos= starts from the empty board and says why.
    client
        .goto(&format!("{base}/?pos=48"))
        .await
        .expect("the page loads");
    let page = wait_for(client, "the message about ?pos=48", |p| {
        p["error"].is_string()
    })
    .await;
    let error = page["error"].as_str().expect("an error text");
    assert!(error.contains("not a column"), "{error}");
    assert_eq!(page["moves"], "(empty board)");
    assert_eq!(
        page["url"], "/?pos=",
        "the bad position is gone from the address"
    );

    keyboard_and_scores_off(client, base, solver, &linked).await;
}

/// The keyboard from a fresh load of `moves` (nothing focused): Tab reaches the first column
/// with a visible focus ring, the arrows move between columns, Enter plays, U undoes, Tab goes
/// on to the "Show scores" switch and Space turns scores off. Then scores off: nothing of the
/// solver's shows and nothing is asked while people play; the choice holds for the next
/// visit; a finished game still says who won; the solver still plays its side; scores on
/// again.
async fn keyboard_and_scores_off(client: &Client, base: &str, solver: &mut Solver, moves: &str) {
    let mut moves = moves.to_string();
    client
        .goto(&format!("{base}/?pos={moves}"))
        .await
        .expect("the page loads");
    check_position(client, &moves, &strong(solver, &moves)).await;
    press(client, &Key::Tab).await;
    let page = snapshot(client).await;
    assert_eq!(page["focus"]["col"], "1", "Tab: the first column, {page:#}");
    assert_eq!(page["focus"]["outline"], "solid 3px", "a focus ring");
    press(client, &(Key::Right + &Key::Right)).await;
    let page = snapshot(client).await;
    assert_eq!(page["focus"]["col"], "3", "→ →: the third column, {page:#}");
    press(client, &Key::Enter).await;
    check_position(
        client,
        &format!("{moves}3"),
        &strong(solver, &format!("{moves}3")),
    )
    .await;
    press(client, "u").await;
    check_position(client, &moves, &strong(solver, &moves)).await;

    let page = tab_to(client, "hints").await;
    assert_eq!(page["focus"]["outline"], "solid 3px", "a focus ring");
    assert_eq!(page["hints"], true, "scores on at first");
    client
        .execute(COUNT_SOLVES, vec![])
        .await
        .expect("the count of solves set up");
    press(client, &Key::Space).await;
    let page = wait_for(client, "scores off", |p| {
        p["hints"] == false && p["state"] == "idle"
    })
    .await;
    assert_no_scores(&page);
    assert_eq!(page["url"], format!("/?pos={moves}&hints=0"), "{page:#}");

    // People play, by key and by click: no solve asked, no score shown.
    press(client, "4").await;
    moves.push('4');
    click_column(client, 2).await;
    moves.push('2');
    wait_for(client, "two moves with scores off", |p| p["moves"] == moves).await;
    // COUNT_SOLVES counts a request as it is made; the pause is for a page that would make one
    // late, after a timer.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let page = snapshot(client).await;
    assert_eq!(page["state"], "idle", "{page:#}");
    assert_no_scores(&page);
    assert_eq!(
        page["solves"], 0,
        "no solve asked with scores off: {page:#}"
    );
    assert_eq!(
        page["red"].as_u64().unwrap_or(0) + page["yellow"].as_u64().unwrap_or(0),
        moves.len() as u64
    );

    // The next visit keeps scores off (localStorage), even without ?hints=0.
    client
        .goto(&format!("{base}/?pos={moves}"))
        .await
        .expect("the page loads");
    let page = wait_for(client, "scores off again", |p| {
        p["moves"] == moves && p["state"] == "idle"
    })
    .await;
    assert_eq!(page["hints"], false, "{page:#}");
    assert_no_scores(&page);
    assert_eq!(page["url"], format!("/?pos={moves}&hints=0"));
    assert_eq!(page["status"], "Yellow to move", "{page:#}");

    // The solver still plays its side (Yellow, to move): it asks for the scores it needs
    // and shows none of them.
    client
        .execute(COUNT_SOLVES, vec![])
        .await
        .expect("the count of solves set up");
    let pos = Position::from_moves(&moves).expect("a valid test position");
    let before = solver.analyze(&pos, Strength::Strong);
    click(client, "#solver-plays").await;
    let page = wait_for(client, "the solver's move with scores off", |p| {
        p["moves"]
            .as_str()
            .is_some_and(|m| m.len() == moves.len() + 1)
            && p["state"] == "idle"
    })
    .await;
    assert_no_scores(&page);
    assert_eq!(page["solves"], 1, "one solve, for the solver's move");
    let played = solver_move(&page, &moves, &before);
    click(client, "#solver-plays").await;

    // A finished game still says who won.
    client
        .goto(&format!("{base}/?pos=1212121"))
        .await
        .expect("the page loads");
    let page = wait_for(client, "a won game, scores off", |p| p["state"] == "over").await;
    assert_eq!(page["hints"], false);
    assert_eq!(page["status"], "Red wins", "{page:#}");
    assert_eq!(page["verdict"], "Red connected four on move 7.", "{page:#}");

    // Scores on again: they come for the position shown, and the address drops ?hints=0.
    client
        .goto(&format!("{base}/?pos={played}&hints=0"))
        .await
        .expect("the page loads");
    wait_for(client, "scores off", |p| p["state"] == "idle").await;
    click(client, "#hints").await;
    check_position(client, &played, &strong(solver, &played)).await;
}

/// A server, chromedriver and a scratch browser profile for one test.
struct Setup {
    guard: Guard,
    base: String,
    webdriver: String,
    chromium: PathBuf,
    profile: PathBuf,
}

impl Setup {
    /// Starts `transpo-c4 serve` with `server_args`, and chromedriver; `None` (the test is
    /// skipped) without Chromium or chromedriver, unless `CI=true`, where that fails.
    fn start(server_args: &[&str]) -> Option<Setup> {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        let chromium = find_program("/usr/bin/chromium", "chromium");
        let chromedriver = find_program("/usr/bin/chromedriver", "chromedriver");
        let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
            let why = "needs chromium and chromedriver (apt-get install chromium chromium-driver)";
            assert!(!ci, "browser test: {why}; CI=true, so this fails");
            println!("browser test skipped: {why}");
            return None;
        };
        let mut guard = Guard::default();
        let base = start_server(&mut guard, server_args);
        eprintln!("server at {base}");
        let webdriver = start_chromedriver(&mut guard, &chromedriver);
        let profile = std::env::temp_dir().join(format!(
            "transpo-c4-browser-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&profile).expect("a scratch profile directory");
        guard.scratch = Some(profile.clone());
        Some(Setup {
            guard,
            base,
            webdriver,
            chromium,
            profile,
        })
    }

    /// Opens a browser session, runs `checks` in it with the server's address, and ends it.
    fn run(self, checks: impl AsyncFnOnce(&Client, &str)) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        runtime.block_on(async {
            let browser = open_browser(&self.webdriver, &self.chromium, &self.profile);
            let client = tokio::time::timeout(WAIT, browser)
                .await
                .expect("a browser session within 60 s");
            let outcome = tokio::time::timeout(SESSION, checks(&client, &self.base)).await;
            // Ends the session (and the browser) when the checks passed or ran out of time;
            // after a panic, the guard kills chromedriver's process group, the browser with
            // it.
            let _ = tokio::time::timeout(WAIT, client.close()).await;
            outcome.expect("the browser checks finish within 10 minutes");
        });
        drop(self.guard);
    }
}

/// The book the 7×6 page is served with: every position up to 4 stones (the built-in book of
/// earlier versions, `transpo-c4 book --depth 4`), so that the empty board is answered at once
/// and the first position, 4 stones, is a solve of seconds during which the spinner shows.
/// (The built-in book answers every position up to 7 stones at once.)
const DEPTH4_BOOK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/depth4.book");

#[test]
fn the_page_shows_the_solvers_scores() {
    let Some(setup) = Setup::start(&["--book", DEPTH4_BOOK]) else {
        return;
    };
    let mut solver = Solver::new(16).expect("a 16 MiB table");
    setup.run(async |client, base| drive(client, base, &mut solver).await);
}

/// Checks that `page` shows `expected`'s scores (one per column) as its `data-score`s.
fn assert_scores(page: &Value, expected: &[Option<i32>], what: &str) {
    for (col, expected) in expected.iter().enumerate() {
        let shown = page["scores"][col]
            .as_str()
            .expect("data-score is a string");
        assert_eq!(
            shown.parse::<i32>().ok(),
            *expected,
            "{what}, column {} (page: {page:#})",
            col + 1
        );
    }
}

/// With `serve --weak` the page asks for what it shows. Opened without `weak`, its
/// switch starts on, as the server's strength (/api/health), and it shows the weak solver's
/// scores; switched off, it names `weak=0` in every request and shows the strong scores, whose
/// best columns for 4453 are 3, 6 and 7 (the README's example answer); the address says
/// `weak=0`, and opening that address shows the strong scores again. (Before, the page sent
/// no `weak=0` and showed weak scores with the switch off.)
#[test]
fn the_page_asks_for_the_strength_it_shows() {
    let Some(setup) = Setup::start(&["--weak"]) else {
        return;
    };
    let mut solver = Solver::new(16).expect("a 16 MiB table");
    let pos = Position::from_moves(START).expect("a valid test position");
    let weak = solver.analyze(&pos, Strength::Weak).to_vec();
    let strong = solver.analyze(&pos, Strength::Strong).to_vec();
    let top = strong.iter().flatten().max().copied();
    let best: Vec<usize> = (1..=WIDTH).filter(|&c| strong[c - 1] == top).collect();
    assert_eq!(best, [3, 6, 7], "the strong best columns of {START}");
    setup.run(async |client, base| {
        let base = base.trim_end_matches('/');
        client
            .goto(&format!("{base}/?pos={START}"))
            .await
            .expect("the page loads");
        let page = wait_for(client, "the first scores", |p| {
            p["state"] == "ready" && p["moves"] == START
        })
        .await;
        assert_eq!(page["weak"], true, "the switch starts as the server solves");
        assert_scores(&page, &weak, "weak by default");
        assert_eq!(page["url"], format!("/?pos={START}"), "the address");
        client
            .execute(COUNT_SOLVES, vec![])
            .await
            .expect("the counting script runs");
        click(client, "#weak").await;
        let strong_url = format!("/?pos={START}&weak=0");
        let page = wait_for(client, "strong scores", |p| {
            p["state"] == "ready" && p["url"] == strong_url
        })
        .await;
        assert_eq!(page["weak"], false, "the switch is off");
        assert_scores(&page, &strong, "switched to strong");
        let asked = page["asked"].as_array().expect("the solves asked");
        assert!(!asked.is_empty(), "no solve asked: {page:#}");
        for url in asked {
            let url = url.as_str().expect("an address");
            assert!(url.contains("weak=0"), "asked {url} with the switch off");
        }
        let verdict = page["verdict"].as_str().expect("a verdict");
        assert!(verdict.contains("columns 3, 6, 7"), "{verdict}");
        client
            .goto(&format!("{base}{strong_url}"))
            .await
            .expect("the page loads");
        let page = wait_for(client, "strong scores again", |p| {
            p["state"] == "ready" && p["moves"] == START
        })
        .await;
        assert_eq!(
            page["weak"], false,
            "weak=0 in the address: the switch is off"
        );
        assert_scores(&page, &strong, "opened with weak=0");
        assert_eq!(page["url"], strong_url, "the address keeps weak=0");
    });
}

/// Another board: the server's `--board 6x7` (6 columns of 7 rows). The page draws the
/// board /api/health names, plays on it, and shows `Solver::<6, 7>`'s scores.
#[test]
fn the_page_draws_the_servers_board() {
    let Some(setup) = Setup::start(&["--board", "6x7"]) else {
        return;
    };
    let mut solver = solver::Solver::<6, 7>::new(16).expect("a 16 MiB table");
    let mut scores = |moves: &str| -> Vec<Option<i32>> {
        let pos = position::Position::<6, 7>::from_moves(moves).expect("a valid 6x7 position");
        solver.analyze(&pos, Strength::Strong).to_vec()
    };
    setup.run(async |client, base| {
        let base = base.trim_end_matches('/');
        client
            .goto(&format!("{base}/?pos={START_6X7}"))
            .await
            .expect("the page loads");
        let page = wait_for(client, "the 6x7 board drawn", |p| p["columns"] != 0).await;
        assert_eq!(page["columns"], 6, "six columns: {page:#}");
        assert!(
            page["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .all(|r| r == 7),
            "seven squares a column: {page:#}"
        );
        let mut moves = START_6X7.to_string();
        check_position(client, &moves, &scores(&moves)).await;
        let page = snapshot(client).await;
        let text = page["text"].as_str().expect("the page's text");
        assert!(text.contains("6 × 7 board"), "{text}");
        // 42 squares, as on 7×6: a win with one's k-th disc scores 22 − k.
        assert!(text.contains("scores 22\u{a0}−\u{a0}k"), "{text}");

        // Key 7 names no column here: nothing happens. Then a click plays column 3.
        press(client, "7").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(snapshot(client).await["moves"], moves, "key 7 on 6 columns");
        click_column(client, CLICK_6X7).await;
        moves.push_str(&CLICK_6X7.to_string());
        check_position(client, &moves, &scores(&moves)).await;
    });
}
