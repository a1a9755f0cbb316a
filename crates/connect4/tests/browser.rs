//! `transpo-c4 serve`'s page in a real browser: the server binary on a free port of
//! 127.0.0.1, driven through chromedriver and headless Chromium. The page's seven column
//! scores are checked against the library's own [`Solver`] for a position loaded from the
//! address, after clicks, after Undo, after a key, with the weak switch, after the solver's
//! own move; then the move link, a finished game (no solve), New game, the empty board and a
//! bad `?pos=`. A screenshot goes to `<target dir>/browser/connect4.png`.
//!
//! Without Chromium or chromedriver the test says "browser test skipped: …" and passes,
//! unless `CI=true`, where it fails (CI installs them: `.ci/run`).
//!
//! The positions are mid-game ones that solve in seconds on one thread and a 16 MiB table,
//! and the empty board, which the server answers from its built-in book; the page's scores for
//! it are checked against the published ones, not against a solve of minutes.

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
use transpo_connect4::{Position, Solver, Strength};

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

/// Starts `transpo-c4 serve` on a free port and returns its base address
/// (`http://127.0.0.1:PORT/`), read from the line it prints on stderr before it serves; a
/// thread then passes the rest of its stderr (one line per request) on to ours.
fn start_server(guard: &mut Guard) -> String {
    let server = guard.spawn(
        "the server",
        Command::new(env!("CARGO_BIN_EXE_transpo-c4"))
            .args(["serve", "--port", "0", "--threads", "1", "--hash-mib", "16"])
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
    address_rx
        .recv_timeout(WAIT)
        .expect("the server says where it listens within 60 s")
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
/// link's text and href, the error (null when hidden), whether the spinner shows, the discs,
/// and each score label's `data-score` and text.
const SNAPSHOT: &str = r#"
const q = (s) => document.querySelector(s);
const labels = [...document.querySelectorAll('[data-score-col]')]
  .sort((a, b) => a.dataset.scoreCol - b.dataset.scoreCol);
return {
  state: q('#board').dataset.state,
  status: q('#status').textContent,
  moves: q('#moves').textContent,
  href: q('#moves').getAttribute('href'),
  error: q('#error').hidden ? null : q('#error-text').textContent,
  spinner: !q('#spinner').hidden && getComputedStyle(q('#spinner')).display !== 'none',
  columns: document.querySelectorAll('#board [data-col]').length,
  red: document.querySelectorAll('#board .cell.red').length,
  yellow: document.querySelectorAll('#board .cell.yellow').length,
  scores: labels.map((l) => l.dataset.score ?? ''),
  texts: labels.map((l) => l.textContent),
  url: location.pathname + location.search,
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

/// Waits until the page shows the scores of `moves`, checks them against `solver`'s, and
/// checks the move link, the status and the discs.
async fn check_position(client: &Client, solver: &mut Solver, moves: &str) {
    let shown_moves = if moves.is_empty() {
        "(empty board)"
    } else {
        moves
    };
    let page = wait_for(client, &format!("the scores of {moves:?}"), |p| {
        p["state"] == "ready" && p["moves"] == shown_moves
    })
    .await;
    let expected = if moves.is_empty() {
        EMPTY_BOARD
    } else {
        let pos = Position::from_moves(moves).expect("a valid test position");
        solver.analyze(&pos, Strength::Strong)
    };
    for col in 0..WIDTH {
        let shown = page["scores"][col]
            .as_str()
            .expect("data-score is a string");
        let text = page["texts"][col].as_str().expect("a label's text");
        match expected[col] {
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
            }
            None => assert_eq!(shown, "", "{moves}: column {} is full", col + 1),
        }
    }
    assert_eq!(page["href"], format!("/?pos={moves}"), "the move link");
    assert_eq!(page["url"], format!("/?pos={moves}"), "the address bar");
    assert_eq!(page["spinner"], false, "no spinner once solved");
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

/// The browser session: every check of the page, in order.
async fn drive(client: &Client, base: &str, solver: &mut Solver) {
    let base = base.trim_end_matches('/');

    // A position from the address, then a few clicks, each re-checked.
    client
        .goto(&format!("{base}/?pos={START}"))
        .await
        .expect("the page loads");
    let page = snapshot(client).await;
    assert_eq!(page["columns"], WIDTH, "one [data-col] per column");
    // The first solve takes seconds on one thread: the spinner turns meanwhile.
    assert_eq!(page["state"], "solving", "{page:#}");
    assert_eq!(page["spinner"], true, "the spinner shows while solving");
    let mut moves = START.to_string();
    check_position(client, solver, &moves).await;
    for col in CLICKS {
        click_column(client, col).await;
        moves.push_str(&col.to_string());
        check_position(client, solver, &moves).await;
    }

    // Undo takes one move back.
    click(client, "#undo").await;
    moves.pop();
    check_position(client, solver, &moves).await;

    // Keys 1-7 play too: 5 plays the undone move again.
    client
        .find(Locator::Css("body"))
        .await
        .expect("the body")
        .send_keys("5")
        .await
        .expect("a key press");
    moves.push('5');
    check_position(client, solver, &moves).await;

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
    check_position(client, solver, &moves).await;

    // The solver plays Yellow, the side to move: a best column once the scores are in.
    let before = solver.analyze(&pos, Strength::Strong);
    let best = before.iter().flatten().max().expect("a playable column");
    click(client, "#solver-plays").await;
    let page = wait_for(client, "the solver's move", |p| {
        p["moves"]
            .as_str()
            .is_some_and(|m| m.len() == moves.len() + 1)
    })
    .await;
    let played = page["moves"].as_str().expect("the moves").to_string();
    let col = played[moves.len()..]
        .parse::<usize>()
        .expect("a column digit");
    assert_eq!(
        before[col - 1],
        Some(*best),
        "the solver played a best column"
    );
    check_position(client, solver, &played).await;
    // Undo takes back the solver's move and the one before, back to a human's turn; the
    // solver then waits.
    click(client, "#undo").await;
    moves.pop();
    check_position(client, solver, &moves).await;
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
    check_position(client, solver, &linked).await;

    // New game: the empty board, Red to move, answered from the server's book.
    click(client, "#new-game").await;
    check_position(client, solver, "").await;

    // The empty board from the address: the same.
    client.goto(base).await.expect("the page loads");
    check_position(client, solver, "").await;
    let page = snapshot(client).await;
    assert_eq!(page["status"], "Red to move", "{page:#}");
    assert_eq!(
        (page["red"].as_u64(), page["yellow"].as_u64()),
        (Some(0), Some(0))
    );

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
}

#[test]
fn the_page_shows_the_solvers_scores() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let chromium = find_program("/usr/bin/chromium", "chromium");
    let chromedriver = find_program("/usr/bin/chromedriver", "chromedriver");
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        let why = "needs chromium and chromedriver (apt-get install chromium chromium-driver)";
        assert!(!ci, "browser test: {why}; CI=true, so this fails");
        println!("browser test skipped: {why}");
        return;
    };

    let mut guard = Guard::default();
    let base = start_server(&mut guard);
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

    let mut solver = Solver::new(16).expect("a 16 MiB table");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let client = tokio::time::timeout(WAIT, open_browser(&webdriver, &chromium, &profile))
            .await
            .expect("a browser session within 60 s");
        let outcome = tokio::time::timeout(SESSION, drive(&client, &base, &mut solver)).await;
        // Ends the session (and the browser) when the checks passed or ran out of time; after
        // a panic, the guard kills chromedriver's process group, the browser with it.
        let _ = tokio::time::timeout(WAIT, client.close()).await;
        outcome.expect("the browser checks finish within 10 minutes");
    });
    drop(guard);
}
