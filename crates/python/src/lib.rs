//! The Python package `transpo_c4`'s compiled half, `transpo_c4._native`, in two layers:
//!
//! - plain Rust, tested with `cargo test` (no Python needed): what a caller's position is
//!   and why one is refused (`read`: move strings, column lists, grids, in words that say
//!   what was received and what was expected), the clients' layouts (`layout`: PettingZoo's
//!   planes, Kaggle's flat board, OpenSpiel's tensor), the checks on a board with the
//!   library's win rule (`rules`), a batch's positions read from a numpy array's values
//!   (`batch`), a solver's settings (`settings`), and the library's solvers behind one trait
//!   (`engine`);
//! - the PyO3 layer (`py`), which copies Python objects into that plain data, runs the
//!   engine without the GIL, stoppable by Ctrl-C, and turns refusals into exceptions. It is
//!   left out of `cargo test`'s build: with PyO3's `extension-module` feature the
//!   interpreter's symbols come only from the interpreter that imports the module, so a test
//!   binary that used them would not link.
//!
//! The package `transpo_c4` (python/transpo_c4/__init__.py) re-exports the compiled half.

#![warn(missing_docs)]

pub mod batch;
pub mod budget;
pub mod engine;
pub mod layout;
#[cfg(not(test))]
mod py;
pub mod read;
pub mod rules;
pub mod settings;

/// The tests' random numbers: a stream of numbers below `n`, from `seed` by a linear
/// congruential generator (Knuth's MMIX constants), the same on every run and with no
/// dependency.
#[cfg(test)]
pub(crate) fn seeded(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % n as u64) as usize
    }
}
