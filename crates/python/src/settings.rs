//! A `Solver`'s settings, checked: the board, strong or weak, threads, table size and book,
//! as the caller wrote them (what a pickled solver carries) and as they are used.

use crate::read::{Refusal, Value};
use transpo_connect4::Strength;
use transpo_connect4::board::Board;

/// The most threads a solver takes: each beyond the first has a 2 MiB near table of its own
/// (and another in the crew's).
pub const MAX_THREADS: usize = 256;
/// The most MiB of table asked for: 2^30 MiB, far past any machine; a table the machine
/// cannot give is refused when it is made (`MemoryError`).
pub const MAX_HASH_MIB: u64 = 1 << 30;

/// The opening book asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookSetting {
    /// No book.
    None,
    /// The library's built-in book (7×6 only; other boards then have none).
    BuiltIn,
    /// A book file (`transpo-c4 book`).
    Path(String),
}

impl BookSetting {
    /// The setting of `book=`: `None`, `"built-in"`, or a path (a `str`, or what
    /// `os.fspath` made of a path-like object).
    pub fn of(text: Option<&str>) -> BookSetting {
        match text {
            None => BookSetting::None,
            Some("built-in") => BookSetting::BuiltIn,
            Some(path) => BookSetting::Path(path.to_string()),
        }
    }
}

/// A solver's checked settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The board.
    pub board: Board,
    /// Strong (exact scores) or weak (win, draw, loss).
    pub strength: Strength,
    /// Threads a solve uses.
    pub threads: usize,
    /// Threads as asked: `None` for every core (of the machine the solver is made on).
    pub threads_asked: Option<usize>,
    /// MiB of each table.
    pub hash_mib: u64,
    /// The book asked for.
    pub book: BookSetting,
}

/// An int setting in `1..=max`, named `name` in a refusal.
fn bounded(value: &Value, name: &str, max: u64, what: &str) -> Result<u64, Refusal> {
    let refuse = |shown: &str| Refusal::Value(format!("{name}={shown}: {what}"));
    match value {
        Value::Int(i) if (1..=max as i64).contains(i) => Ok(*i as u64),
        Value::Int(i) => Err(refuse(&i.to_string())),
        Value::BigInt(digits) => Err(refuse(digits)),
        other => Err(Refusal::Type(format!(
            "{name} is {}, not an int: {what}",
            other.describe()
        ))),
    }
}

impl Settings {
    /// The settings asked for, checked: `board` written `WxH`, `threads` (`None`: every
    /// core) from 1 to [`MAX_THREADS`], `hash_mib` from 1 to [`MAX_HASH_MIB`].
    pub fn new(
        board: &str,
        weak: bool,
        threads: Option<&Value>,
        hash_mib: &Value,
        book: BookSetting,
    ) -> Result<Settings, Refusal> {
        let board = board
            .parse::<Board>()
            .map_err(|e| Refusal::Value(e.to_string()))?;
        let threads_asked = threads
            .map(|t| {
                let what = format!("give from 1 to {MAX_THREADS}, or None for every core");
                bounded(t, "threads", MAX_THREADS as u64, &what).map(|t| t as usize)
            })
            .transpose()?;
        let what = format!("the table's MiB, from 1 to {MAX_HASH_MIB}");
        let hash_mib = bounded(hash_mib, "hash_mib", MAX_HASH_MIB, &what)?;
        let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Settings {
            board,
            strength: if weak {
                Strength::Weak
            } else {
                Strength::Strong
            },
            threads: threads_asked.unwrap_or_else(cores).min(MAX_THREADS),
            threads_asked,
            hash_mib,
            book,
        })
    }

    /// Whether scores are only win, draw or loss.
    pub fn weak(&self) -> bool {
        self.strength == Strength::Weak
    }

    /// The book in use: `"built-in"`, a path, or `None` (also when `book_in_use` says the
    /// board has no built-in book).
    pub fn book_name(&self, book_in_use: bool) -> Option<String> {
        match &self.book {
            BookSetting::BuiltIn if book_in_use => Some("built-in".into()),
            BookSetting::Path(path) => Some(path.clone()),
            _ => None,
        }
    }

    /// The Python expression that makes a solver of these settings (threads as used).
    pub fn repr(&self, book_in_use: bool) -> String {
        let book = match self.book_name(book_in_use) {
            None => "None".to_string(),
            Some(name) => format!("{name:?}"),
        };
        format!(
            "Solver(board={:?}, weak={}, threads={}, hash_mib={}, book={book})",
            self.board.to_string(),
            if self.weak() { "True" } else { "False" },
            self.threads,
            self.hash_mib
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(threads: Option<Value>, hash_mib: Value) -> Result<Settings, Refusal> {
        Settings::new(
            "7x6",
            false,
            threads.as_ref(),
            &hash_mib,
            BookSetting::BuiltIn,
        )
    }

    #[test]
    fn settings_are_checked() {
        let s = make(Some(Value::Int(3)), Value::Int(16)).expect("settings");
        assert_eq!((s.threads, s.threads_asked, s.hash_mib), (3, Some(3), 16));
        let every = make(None, Value::Int(16)).expect("settings");
        assert!(every.threads >= 1 && every.threads_asked.is_none());
        let why = |r: Result<Settings, Refusal>| r.expect_err("refused");
        assert_eq!(
            why(make(Some(Value::Int(0)), Value::Int(1))),
            Refusal::Value("threads=0: give from 1 to 256, or None for every core".into())
        );
        assert!(
            why(make(Some(Value::BigInt("1".repeat(30))), Value::Int(1)))
                .message()
                .starts_with("threads=111")
        );
        assert!(matches!(
            why(make(Some(Value::Other("float".into())), Value::Int(1))),
            Refusal::Type(_)
        ));
        assert!(matches!(
            why(make(Some(Value::Bool(true)), Value::Int(1))),
            Refusal::Type(_)
        ));
        assert!(
            why(make(None, Value::Int(0)))
                .message()
                .starts_with("hash_mib=0: the table's MiB")
        );
        assert!(
            why(Settings::new(
                "3x3",
                false,
                None,
                &Value::Int(1),
                BookSetting::None
            ))
            .message()
            .starts_with("no 3x3 board")
        );
        assert!(
            why(Settings::new(
                "seven",
                false,
                None,
                &Value::Int(1),
                BookSetting::None
            ))
            .message()
            .contains("not a board")
        );
    }

    #[test]
    fn the_repr_and_the_book_name() {
        let s = make(Some(Value::Int(2)), Value::Int(64)).expect("settings");
        assert_eq!(
            s.repr(true),
            "Solver(board=\"7x6\", weak=False, threads=2, hash_mib=64, book=\"built-in\")"
        );
        assert_eq!(s.book_name(false), None);
        assert_eq!(
            BookSetting::of(Some("a.book")),
            BookSetting::Path("a.book".into())
        );
        assert_eq!(BookSetting::of(None), BookSetting::None);
    }
}
