//! The cluster's policy timed in virtual time (`transpo_c4::cluster::simulate`): one solve
//! of an empty board by one solver, then by a manager and `--workers` workers, and what the
//! workers cost beside it — positions, speed-up in ticks, busy share, ticks on stopped jobs.
//!
//! ```sh
//! cargo run --release -p transpo-c4 --example cluster_sim -- --board 7x5 --workers 4,16
//! ```

use clap::Parser;
use std::process::ExitCode;
use transpo_c4::cluster::foreman::Crew;
use transpo_c4::cluster::plan::Plan;
use transpo_c4::cluster::simulate::{self, Costs, Lanes, Stops, simulate, thread_cpu_time};
use transpo_c4::knobs::Knobs;
use transpo_cli::Failure;
use transpo_connect4::position::{Bitboard, Position};
use transpo_connect4::score::Strength;
use transpo_connect4::solver::Solver;

/// Times the manager's policy in virtual time.
#[derive(Parser)]
struct Args {
    /// The board: 6x5, 7x5, 6x6, 8x5, 9x4, 10x4 or 7x6.
    #[arg(long, default_value = "7x5")]
    board: String,
    /// The worker counts to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "16")]
    workers: Vec<usize>,
    /// A weak solve.
    #[arg(long)]
    weak: bool,
    /// Children answered before a node releases the rest (default: the binary's rule).
    #[arg(long)]
    alone: Option<u32>,
    /// The same at the nodes expected to need all their children (default: `--alone`'s).
    #[arg(long)]
    alone_all: Option<u32>,
    /// Jobs this many stones from the empty board (default: the binary's rule for the
    /// searches at once).
    #[arg(long)]
    leaf_stones: Option<u32>,
    /// Stones deeper the main line's jobs are (default: the binary's rule for the searches
    /// at once).
    #[arg(long)]
    main_line_stones: Option<u32>,
    /// Stones past the leaf depth a new job may be split to while the top tree needs fewer
    /// jobs than the searches (default: the binary's rule).
    #[arg(long)]
    deepen: Option<u32>,
    /// Jobs guessed ahead of young brothers wait for workers that would wait.
    #[arg(long)]
    guesses: Option<u32>,
    /// Jobs held ahead by a worker (at least its lanes; default: the binary's rule, two
    /// with a crew).
    #[arg(long)]
    ahead: Option<usize>,
    /// Jobs each worker searches at once, on one table (one thread each).
    #[arg(long, default_value_t = 1)]
    lanes: usize,
    /// Bounds passed on from this many empty squares below the job.
    #[arg(long, default_value_t = 10)]
    share_below: u32,
    /// Journal only bounds whose search explored this many positions.
    #[arg(long, default_value_t = 1)]
    min_nodes: u64,
    /// Ticks a message takes.
    #[arg(long, default_value_t = Costs::default().latency)]
    latency: u64,
    /// Charge the manager's own time at this machine's one-thread rate (measured by the one
    /// solve).
    #[arg(long)]
    manager_time: bool,
    /// The share of the foremen's time charged with `--manager-time`, from 0 (none: what
    /// their time costs the run) to 1 (all, the default).
    #[arg(long, default_value_t = 1.0)]
    foreman_charge: f64,
    /// MiB of each worker's table (and one solve's).
    #[arg(long, default_value_t = 128)]
    hash_mib: u64,
    /// Each worker splits its jobs over its lanes with a top tree of its own, into jobs this
    /// many stones deeper (the manager then counts one search a worker), as
    /// `TRANSPO_C4_MPI_CREW` does.
    #[arg(long)]
    crew_stones: Option<u32>,
    /// Stones further a worker's tree splits a job while it needs fewer jobs than the lanes
    /// (default: the binary's).
    #[arg(long)]
    crew_deepen: Option<u32>,
    /// Children a node of a worker's tree answers before it releases the rest (default: the
    /// binary's).
    #[arg(long)]
    crew_alone: Option<u32>,
    /// What a job stopped while it searches costs and leaves: `cut` (its ticks to the stop,
    /// its whole search left in the table), `whole` (its whole search's ticks) or `partial`
    /// (its ticks to the stop, and what a search stopped there leaves).
    #[arg(long, default_value = "cut")]
    stops: String,
    /// Jobs a worker's tree guesses for lanes that would wait (default: the binary's).
    #[arg(long)]
    crew_guesses: Option<usize>,
    /// Lane jobs a worker's tree gives out beyond one a lane, waiting in the lanes' queue
    /// (default: the binary's).
    #[arg(long)]
    crew_spare: Option<usize>,
    /// Whether a lane job a worker's tree splits while it runs keeps running beside its
    /// children's jobs (`true` or `false`; default: the binary's).
    #[arg(long)]
    crew_beside: Option<bool>,
}

fn run<const W: usize, const H: usize, B: Bitboard>(args: &Args) -> Result<(), Failure> {
    if !(0.0..=1.0).contains(&args.foreman_charge) {
        return Err(Failure::usage(format!(
            "--foreman-charge {}: a share from 0 to 1",
            args.foreman_charge
        )));
    }
    if args.foreman_charge != 1.0 && !args.manager_time {
        return Err(Failure::usage(
            "--foreman-charge: only with --manager-time (the foremen's time is charged only then)",
        ));
    }
    let strength = if args.weak {
        Strength::Weak
    } else {
        Strength::Strong
    };
    let stops = match args.stops.as_str() {
        "cut" => Stops::Cut,
        "whole" => Stops::Whole,
        "partial" => Stops::Partial,
        other => {
            return Err(Failure::usage(format!(
                "--stops {other}: cut, whole or partial"
            )));
        }
    };
    // This run's flags as the knobs would set them.
    let squares = (W * H) as u32;
    let leaf = args
        .leaf_stones
        .map(|stones| squares.saturating_sub(stones));
    let knobs = Knobs {
        leaf,
        alone: args.alone,
        alone_all: args.alone_all,
        ahead: args.ahead.map(|ahead| match args.crew_stones {
            Some(_) => ahead as u32,
            None => ahead.max(args.lanes) as u32,
        }),
        guess: args.guesses,
        crew: args.crew_stones,
        ..Knobs::default()
    };
    // Whether workers have foremen does not depend on their count.
    let crews = Plan::new(squares, 2, args.lanes, strength, false, &knobs)
        .crew
        .is_some();
    if args.foreman_charge != 1.0 && !crews {
        return Err(Failure::usage(
            "--foreman-charge: only for workers with foremen (--crew-stones, several --lanes)",
        ));
    }
    let mut one = Solver::<W, H, B>::new(args.hash_mib)
        .map_err(|e| Failure::usage(format!("--hash-mib: {e}")))?;
    // The rate by the thread's CPU time, as the manager's work is charged: a busy machine
    // slows both alike.
    let started = thread_cpu_time();
    let score = one.solve(&Position::new(), strength);
    let base = one.nodes();
    let rate = base as f64 / (thread_cpu_time() - started).as_secs_f64().max(1e-9);
    println!(
        "{} {strength:?}: one solve {base} positions ({:.1} M a second), score {score}",
        args.board,
        rate / 1e6
    );
    for &workers in &args.workers {
        // The binary's plan for that many workers (`cluster::plan`), the knobs over it.
        let plan = Plan::new(squares, workers + 1, args.lanes, strength, false, &knobs);
        let crew = plan.crew.map(|crew| Crew {
            deepen: args.crew_deepen.unwrap_or(crew.deepen),
            alone: args.crew_alone.unwrap_or(crew.alone),
            guesses: args.crew_guesses.unwrap_or(crew.guesses),
            spare: args.crew_spare.unwrap_or(crew.spare),
            beside: args.crew_beside.unwrap_or(crew.beside),
            ..crew
        });
        let mut setup = plan.manager;
        if let Some(stones) = args.main_line_stones {
            setup.main_line = stones;
        }
        if let Some(stones) = args.deepen {
            setup.deepen = stones;
        }
        let (leaf, alone, alone_all) = (setup.leaf_empties, setup.alone, setup.alone_all);
        let (stones, shared) = (squares - leaf, leaf.saturating_sub(args.share_below));
        let costs = Costs {
            latency: args.latency,
            manager_rate: if args.manager_time { rate } else { 0.0 },
            min_nodes: args.min_nodes,
            stops,
            foreman_share: args.foreman_charge,
        };
        let r = simulate::<W, H, B>(
            "",
            workers,
            crew.map_or(Lanes::Own(args.lanes), Lanes::Crew),
            &setup,
            args.hash_mib,
            shared,
            costs,
        )?;
        if r.score != score {
            return Err(Failure::run(format!(
                "{workers} workers scored {}, one solve {score}",
                r.score
            )));
        }
        println!(
            "  {workers:>3} workers x {} lanes, alone {alone} (all {alone_all}), {} guesses, jobs {stones} stones deep (main line +{}, split +{}): positions {:.2}x, speed-up {:.2}x, busy {:.0}%, \
             {} jobs answered, {} stopped ({:.0}% of the positions), manager {:.1}% of the time ({:.3} s charged, {:.3} s of CPU), bounds taken in {:.1}% of the workers' time, foremen {:.1}%; \
             {} charges, each less the clock's {:.2} µs; stopped jobs' positions by cause: {}",
            args.lanes,
            setup.guesses,
            setup.main_line,
            setup.deepen,
            r.positions as f64 / base as f64,
            base as f64 / r.makespan.max(1) as f64,
            100.0 * r.busy_share(workers * args.lanes),
            r.jobs.0,
            r.jobs.1,
            100.0 * r.stopped_ticks as f64 / r.positions.max(1) as f64,
            100.0 * r.thinking as f64 / r.makespan.max(1) as f64,
            r.thinking as f64 / rate,
            r.manager_cpu.as_secs_f64(),
            100.0 * r.intake as f64 / (r.makespan.max(1) as f64 * (workers * args.lanes) as f64),
            100.0 * r.foremen as f64 / (r.makespan.max(1) as f64 * workers as f64),
            r.clock.1,
            r.clock.0.as_secs_f64() * 1e6,
            stopped_by(&r),
        );
    }
    Ok(())
}

/// The shares of the positions of the stopped jobs, by cause.
fn stopped_by(r: &simulate::Report) -> String {
    let names = simulate::STOP_CAUSES
        .iter()
        .map(|cause| format!("{cause:?}").to_lowercase())
        .chain(["no foreman".to_string()]);
    let total = r.stopped_ticks.max(1) as f64;
    names
        .zip(r.stopped_by)
        .map(|(name, ticks)| format!("{name} {:.0}%", 100.0 * ticks as f64 / total))
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() -> ExitCode {
    let args = Args::parse();
    let ran = match args.board.as_str() {
        "6x5" => run::<6, 5, u64>(&args),
        "7x5" => run::<7, 5, u64>(&args),
        "6x6" => run::<6, 6, u64>(&args),
        "8x5" => run::<8, 5, u64>(&args),
        "9x4" => run::<9, 4, u64>(&args),
        "10x4" => run::<10, 4, u64>(&args),
        "7x6" => run::<7, 6, u64>(&args),
        other => Err(Failure::usage(format!(
            "--board {other}: not one of this example's"
        ))),
    };
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message());
            ExitCode::from(failure.exit_code())
        }
    }
}
