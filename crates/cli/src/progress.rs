//! A progress bar on stderr for the commands that take long (`bench`, `sample`, `book`,
//! `solve-list`, the lab's experiments), shown only when stderr is a terminal, so that a log
//! or a pipe gets no control characters.
//!
//! Why here: every binary that runs long shows the same bar, and the rule "only on a
//! terminal" is stated once.

pub use indicatif::ProgressBar;
use indicatif::ProgressStyle;
use std::io::IsTerminal;

/// A progress bar of `len` steps named `name` on stderr (`name [=====>    ] 12/40 3s eta 7s`),
/// hidden when stderr is not a terminal. `len` may be 0 when not known yet
/// ([`ProgressBar::set_length`] sets it later).
pub fn bar(len: u64, name: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} {elapsed} eta {eta}")
        // The template is a constant that parses.
        .expect("valid progress template")
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(name.to_string());
    bar
}
