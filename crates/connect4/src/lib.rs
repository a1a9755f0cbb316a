//! # transpo-connect4: a Connect Four solver on the shared transposition table
//!
//! A strong solver (the exact score) and a weak one (win, draw or loss) in the style of Pascal
//! Pons' solver ("Solving Connect 4", Part 12), built on [`transpo::Table`]: bitboards, a
//! negamax that never plays into an immediate loss, threat-ordered moves, null-window binary
//! search on the score, and upper and lower bounds in an exact table. For the standard 7×6
//! board (the crate-root [`Position`], [`Solver`] and [`Book`]) and any other whose
//! `W·(H + 1)` bits fit in 64, or in 128 with `u128` words ([`position::Bitboard`]), as
//! const parameters ([`position::Position`]`<W, H, B>`; [`board`] picks one at run time).
//!
//! The modules, in the order data flows (each uses only modules before it): `coding` (how
//! the table codes a word's keys) → `bitboard` (the word: `u64` or `u128`) →
//! [`position`] (bitboards, move sequences, keys) → [`moves`] (ordering) → [`score`] (what a
//! score is: strength, win, draw and loss bounds, windows) → [`bounds`] (what the table
//! remembers) → `team` (the threads of a solve and their split points; it reads no
//! environment: the app passes the measurement knobs in as values) → [`book`]
//! (opening books: stored scores, and the tree that scores them) → [`search`] (one thread's
//! negamax and score search) → `parallel` (threads on one solve) → [`solver`] (the solver)
//! and [`pool`] (solvers that answer concurrent requests) and [`crew`] (threads kept
//! between batches of solves, for Python's `solve_many`) → [`protocol`] (the line protocol:
//! `moves [expected]` in, `moves score positions microseconds` out) → [`bench`](mod@bench)
//! (Pons-style test-set runs, lines read with the protocol's parser) → [`estimate`] (how big
//! an empty board's solve is, from a sample of smaller ones). Beside them, [`board`] picks a
//! board at run time.
//!
//! The `transpo-c4` binary (crate `transpo-c4`) is the app on top: the commands, one solve
//! split over many machines, and the web server. This crate needs no async runtime, no
//! command-line parser and no cluster code.
//!
//! ```
//! use transpo_connect4::{Position, Solver, Strength};
//!
//! let pos = Position::from_moves("2252576253462244111563365343671351441")?;
//! let mut solver = Solver::new(16)?;
//! assert_eq!(solver.solve(&pos, Strength::Strong), -1);
//! assert_eq!(solver.solve(&pos, Strength::Weak), -1);
//!
//! // Another board: 6 columns of 7 rows. The first player, to move with three stones in
//! // column 1, wins with the 7th stone: ⌊(42 + 1 − 6) / 2⌋ = 18.
//! use transpo_connect4::{position, solver};
//! let mut solver = solver::Solver::<6, 7>::new(16)?;
//! let pos = position::Position::<6, 7>::from_moves("121212")?;
//! assert_eq!(solver.solve(&pos, Strength::Strong), 18);
//!
//! // A wide board: 7×9 needs 70 bits, so its bitboards are `u128`s. This position's score,
//! // −5, is also Steininger's solver's.
//! let mut solver = solver::Solver::<7, 9, u128>::new(16)?;
//! let pos = position::Position::<7, 9, u128>::from_moves("4172725614622737534114342365723443664367")?;
//! assert_eq!(solver.solve(&pos, Strength::Strong), -5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod bench;
mod bitboard;
pub mod board;
pub mod book;
pub mod bounds;
mod coding;
pub mod crew;
pub mod estimate;
pub mod moves;
mod parallel;
pub mod pool;
pub mod position;
pub mod protocol;
pub mod score;
pub mod search;
pub mod solver;
mod team;

pub use book::BookError;
pub use position::ParseError;
pub use score::Strength;

/// A position of the standard 7×6 board ([`position::Position`] of any board).
pub type Position = position::Position<7, 6>;
/// A solver of the standard 7×6 board, on the exact [`bounds::BoundTable`] unless given
/// another bound store ([`solver::Solver`] of any board).
pub type Solver<T = bounds::BoundTable<7, 6>> = solver::Solver<7, 6, u64, T>;
/// An opening book of the standard 7×6 board ([`book::Book`] of any board).
pub type Book = book::Book<7, 6>;
