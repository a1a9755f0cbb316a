//! What the lab's studies share: the command-line values of an experiment (scheme lists,
//! table sizes, the options of a run), the research table a (scheme, size) cell is run
//! with, a study's CSV, report file and other files, the parallel runner of a matrix of
//! cells, and the paired statistics and formatting of their reports.
//!
//! The studies (`breuker`, `elo`, `c4`) use these pieces; nothing here uses any study, not
//! even in a doc link, so that the modules' imports form no circle.

pub mod csv;
pub mod files;
pub mod palette;
pub mod report_file;
pub mod runner;
pub mod schemes;
pub mod sizes;
pub mod stamping;
pub mod stats;

/// A comma-separated (or range) value parsed whole, so clap keeps it as one argument.
#[derive(Clone, Debug)]
pub struct List<T>(pub Vec<T>);

impl<T: Clone> List<T> {
    /// The given list's values, or `default` when the flag was not given.
    pub fn or(given: &Option<List<T>>, default: Vec<T>) -> Vec<T> {
        given.as_ref().map_or(default, |l| l.0.clone())
    }
}
