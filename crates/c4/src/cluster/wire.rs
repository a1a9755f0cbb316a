//! Every message between the manager and its workers, and the only place that turns one
//! into bytes or back: a message is a tag (MPI's, so a rank can wait for one kind) and
//! plain little-endian bytes, so no MPI datatype beyond bytes is needed.
//!
//! The handshake ([`ToManager::Hello`]) opens with [`FORMAT`]: ranks of builds whose
//! messages differ are refused before any job is sent, instead of misreading each other.
//! Decoding never trusts a length it is given: every field is read from the bytes that came.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use transpo_connect4::score::Window;

/// The version of these messages' layout. Raise it with any change to a layout below.
pub const FORMAT: u32 = 3;

/// Manager to worker: search a job.
pub const TAG_JOB: i32 = 1;
/// Manager to worker: stop a job.
pub const TAG_CANCEL: i32 = 2;
/// Manager to worker: a new input line.
pub const TAG_LINE: i32 = 3;
/// Manager to worker: the run is over.
pub const TAG_END: i32 = 4;
/// Worker to manager, once at the start: its format and what it was started as.
pub const TAG_HELLO: i32 = 10;
/// Worker to manager: a job's answer.
pub const TAG_ANSWER: i32 = 11;
/// Both ways: bounds of positions with many empty squares ([`crate::cluster::sharing`]).
pub const TAG_BOUNDS: i32 = 12;
/// Worker to worker: bounds passed along the tree of [`crate::cluster::relay`].
pub const TAG_PASSED: i32 = 13;

/// What the manager tells a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToWorker {
    /// Search the position reached by `moves` from the empty board until `window` is
    /// decided (or the job is cancelled); answer with `id`.
    Job {
        /// The job's number, unique in the run.
        id: u64,
        /// What the search must decide.
        window: Window,
        /// The position's move sequence (empty for the empty board).
        moves: String,
    },
    /// Stop the job `id` (or do not start it): its answer no longer matters.
    Cancel {
        /// The job's number.
        id: u64,
    },
    /// From the manager: take in these bounds ([`crate::cluster::sharing`]'s journal bytes;
    /// those a state file kept, at the start of a line it resumes): one batch, shared by
    /// every worker it goes to.
    Bounds(Arc<[u8]>),
    /// From another worker: take in the bounds a worker proved, and pass them on along the
    /// tree ([`crate::cluster::relay`]).
    Passed(Passed),
    /// A new input line: forget the table and the count.
    Line,
    /// The run is over: stop what runs, answer what is held, and leave.
    End,
}

/// A batch of bounds passed from worker to worker ([`crate::cluster::relay`]): the worker
/// that proved them (4 bytes) and their journal, in the one buffer a worker sends on as it
/// came, never copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passed(Arc<[u8]>);

impl Passed {
    /// The batch of `journal`, proved by worker `origin`.
    pub fn new(origin: u32, journal: &[u8]) -> Self {
        let mut bytes = Vec::with_capacity(4 + journal.len());
        bytes.extend(origin.to_le_bytes());
        bytes.extend_from_slice(journal);
        Passed(bytes.into())
    }

    /// The worker that proved the bounds.
    pub fn origin(&self) -> u32 {
        let mut origin = [0; 4];
        origin.copy_from_slice(&self.0[..4]);
        u32::from_le_bytes(origin)
    }

    /// The bounds: journal bytes ([`crate::cluster::sharing`]).
    pub fn journal(&self) -> &[u8] {
        &self.0[4..]
    }
}

/// What a worker tells the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToManager {
    /// The first message: the worker's [`FORMAT`] and what it was started as (name and
    /// value pairs, [`check_hello`]).
    Hello {
        /// The worker's message format.
        format: u32,
        /// What it was started as.
        identity: Vec<(String, String)>,
    },
    /// A job's answer.
    Answer(JobAnswer),
    /// Bounds the worker proved, for the others.
    Bounds(Vec<u8>),
}

/// A worker's answer to a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobAnswer {
    /// The job's number.
    pub id: u64,
    /// The range the score lies in, which decides the job's window; `None` if the job was
    /// cancelled first.
    pub range: Option<(i32, i32)>,
    /// The worker's positions on this line so far.
    pub positions: u64,
    /// Microseconds the job searched.
    pub micros: u64,
}

/// Why bytes are not a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// A tag no message has (or a message going the other way).
    Tag(i32),
    /// Too few bytes, or bytes left over, for the tag's layout.
    Length {
        /// The message's tag.
        tag: i32,
        /// The bytes that came.
        len: usize,
    },
    /// Moves or an identity that are not UTF-8 text, or an identity line without `=`.
    Text(i32),
    /// A flag byte other than 0 or 1.
    Flag(u8),
    /// A handshake from a build whose messages differ.
    Format {
        /// The sender's format.
        theirs: u32,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Tag(tag) => write!(f, "a message with the unknown tag {tag}"),
            WireError::Length { tag, len } => {
                write!(f, "a message (tag {tag}) of {len} bytes, not its layout's")
            }
            WireError::Text(tag) => write!(f, "a message (tag {tag}) whose text is malformed"),
            WireError::Flag(byte) => write!(f, "an answer whose flag is {byte}, not 0 or 1"),
            WireError::Format { theirs } => write!(
                f,
                "message format {theirs}, this build's is {FORMAT}: every rank must run the \
                 same build of transpo-c4"
            ),
        }
    }
}

impl std::error::Error for WireError {}

/// Reads fixed fields from the front of a message.
struct Reader<'a> {
    tag: i32,
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.bytes.len() < n {
            return Err(self.short());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let head = self.take(N)?;
        // `take` returned exactly N bytes.
        head.try_into().map_err(|_| self.short())
    }

    fn u64(&mut self) -> Result<u64, WireError> {
        self.array().map(u64::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, WireError> {
        self.array().map(u32::from_le_bytes)
    }

    fn i32(&mut self) -> Result<i32, WireError> {
        self.array().map(i32::from_le_bytes)
    }

    fn text(&mut self) -> Result<&'a str, WireError> {
        let rest = std::mem::take(&mut self.bytes);
        std::str::from_utf8(rest).map_err(|_| WireError::Text(self.tag))
    }

    /// The end of a fixed layout: nothing may be left.
    fn done(&self) -> Result<(), WireError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(self.short())
        }
    }

    fn short(&self) -> WireError {
        WireError::Length {
            tag: self.tag,
            len: self.bytes.len(),
        }
    }
}

impl ToWorker {
    /// The message's MPI tag.
    pub fn tag(&self) -> i32 {
        match self {
            ToWorker::Job { .. } => TAG_JOB,
            ToWorker::Cancel { .. } => TAG_CANCEL,
            ToWorker::Bounds(_) => TAG_BOUNDS,
            ToWorker::Passed(_) => TAG_PASSED,
            ToWorker::Line => TAG_LINE,
            ToWorker::End => TAG_END,
        }
    }

    /// The message's bytes: a job is `id`, `alpha`, `beta` then the moves; a cancel its
    /// `id`; bounds their journal; passed bounds their origin then their journal; a new
    /// line and the end one zero byte (MPI sends no empty message to every implementation's
    /// liking).
    pub fn encode(&self) -> Vec<u8> {
        match self {
            ToWorker::Job { id, window, moves } => {
                let mut bytes = Vec::with_capacity(16 + moves.len());
                bytes.extend(id.to_le_bytes());
                bytes.extend(window.alpha.to_le_bytes());
                bytes.extend(window.beta.to_le_bytes());
                bytes.extend(moves.as_bytes());
                bytes
            }
            ToWorker::Cancel { id } => id.to_le_bytes().to_vec(),
            ToWorker::Bounds(bytes) | ToWorker::Passed(Passed(bytes)) => bytes.to_vec(),
            ToWorker::Line | ToWorker::End => vec![0],
        }
    }

    /// The message's bytes as [`ToWorker::encode`] gives them, without copying a batch of
    /// bounds: what a sender sends from.
    pub fn payload(&self) -> Cow<'_, [u8]> {
        match self {
            ToWorker::Bounds(bytes) | ToWorker::Passed(Passed(bytes)) => Cow::Borrowed(bytes),
            other => Cow::Owned(other.encode()),
        }
    }

    /// The message that `bytes` with `tag` are.
    ///
    /// # Errors
    ///
    /// A tag no manager sends, or bytes that are not its layout.
    pub fn decode(tag: i32, bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader { tag, bytes };
        let message = match tag {
            TAG_JOB => {
                let (id, alpha, beta) = (r.u64()?, r.i32()?, r.i32()?);
                let moves = r.text()?.to_string();
                ToWorker::Job {
                    id,
                    window: Window { alpha, beta },
                    moves,
                }
            }
            TAG_CANCEL => ToWorker::Cancel { id: r.u64()? },
            TAG_BOUNDS => ToWorker::Bounds(bytes.into()),
            TAG_PASSED => {
                r.take(4)?;
                ToWorker::Passed(Passed(bytes.into()))
            }
            TAG_LINE | TAG_END => {
                r.take(1)?;
                if tag == TAG_LINE {
                    ToWorker::Line
                } else {
                    ToWorker::End
                }
            }
            _ => return Err(WireError::Tag(tag)),
        };
        if !matches!(message, ToWorker::Bounds(_) | ToWorker::Passed(_)) {
            r.done()?;
        }
        Ok(message)
    }
}

impl ToManager {
    /// The handshake of this build: [`FORMAT`] and `identity`.
    pub fn hello(identity: &[(&str, String)]) -> Self {
        ToManager::Hello {
            format: FORMAT,
            identity: identity
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect(),
        }
    }

    /// The message's MPI tag.
    pub fn tag(&self) -> i32 {
        match self {
            ToManager::Hello { .. } => TAG_HELLO,
            ToManager::Answer(_) => TAG_ANSWER,
            ToManager::Bounds(_) => TAG_BOUNDS,
        }
    }

    /// The message's bytes: a hello is its format then `name=value` lines; an answer is
    /// `id`, `lo`, `hi`, positions, a byte that is 1 if answered (0: cancelled, `lo` and
    /// `hi` then 0), microseconds; bounds their journal.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            ToManager::Hello { format, identity } => {
                let mut bytes = format.to_le_bytes().to_vec();
                let lines: Vec<String> = identity.iter().map(|(k, v)| format!("{k}={v}")).collect();
                bytes.extend(lines.join("\n").as_bytes());
                bytes
            }
            ToManager::Answer(answer) => {
                let (lo, hi) = answer.range.unwrap_or((0, 0));
                let mut bytes = Vec::with_capacity(33);
                bytes.extend(answer.id.to_le_bytes());
                bytes.extend(lo.to_le_bytes());
                bytes.extend(hi.to_le_bytes());
                bytes.extend(answer.positions.to_le_bytes());
                bytes.push(u8::from(answer.range.is_some()));
                bytes.extend(answer.micros.to_le_bytes());
                bytes
            }
            ToManager::Bounds(bytes) => bytes.clone(),
        }
    }

    /// The message that `bytes` with `tag` are.
    ///
    /// # Errors
    ///
    /// A tag no worker sends, bytes that are not its layout, or a hello of another
    /// [`FORMAT`] ([`WireError::Format`]).
    pub fn decode(tag: i32, bytes: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader { tag, bytes };
        match tag {
            TAG_HELLO => {
                let format = r.u32()?;
                if format != FORMAT {
                    return Err(WireError::Format { theirs: format });
                }
                let text = r.text()?;
                let identity = if text.is_empty() {
                    Vec::new()
                } else {
                    text.split('\n')
                        .map(|line| {
                            line.split_once('=')
                                .map(|(k, v)| (k.to_string(), v.to_string()))
                                .ok_or(WireError::Text(tag))
                        })
                        .collect::<Result<_, _>>()?
                };
                Ok(ToManager::Hello { format, identity })
            }
            TAG_ANSWER => {
                let (id, lo, hi, positions) = (r.u64()?, r.i32()?, r.i32()?, r.u64()?);
                let answered = match r.array::<1>()? {
                    [0] => false,
                    [1] => true,
                    [byte] => return Err(WireError::Flag(byte)),
                };
                let micros = r.u64()?;
                r.done()?;
                Ok(ToManager::Answer(JobAnswer {
                    id,
                    range: answered.then_some((lo, hi)),
                    positions,
                    micros,
                }))
            }
            TAG_BOUNDS => Ok(ToManager::Bounds(bytes.to_vec())),
            _ => Err(WireError::Tag(tag)),
        }
    }
}

/// Checks a worker's handshake against the manager's own identity: every name, in order,
/// with the same value. The error names the first difference.
///
/// # Errors
///
/// `--threads 2 there, 4 here`: what differs.
pub fn check_hello(mine: &[(&str, String)], theirs: &[(String, String)]) -> Result<(), String> {
    for (i, (name, value)) in mine.iter().enumerate() {
        match theirs.get(i) {
            Some((n, v)) if n == name && v == value => {}
            Some((n, v)) if n == name => return Err(format!("{name} {v} there, {value} here")),
            Some((n, _)) => return Err(format!("{n} there where {name} is here")),
            None => return Err(format!("no {name} there, {value} here")),
        }
    }
    match theirs.get(mine.len()) {
        Some((n, _)) => Err(format!("{n} there, nothing here")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_to_worker() -> Vec<ToWorker> {
        vec![
            ToWorker::Job {
                id: u64::MAX - 3,
                window: Window {
                    alpha: -21,
                    beta: i32::MAX,
                },
                moves: "4453".into(),
            },
            ToWorker::Job {
                id: 0,
                window: Window { alpha: 0, beta: 1 },
                moves: String::new(),
            },
            ToWorker::Cancel { id: 77 },
            ToWorker::Bounds(vec![1, 2, 3, 255].into()),
            ToWorker::Bounds(Vec::new().into()),
            ToWorker::Passed(Passed::new(7, &[4, 5, 6])),
            ToWorker::Passed(Passed::new(u32::MAX, &[])),
            ToWorker::Line,
            ToWorker::End,
        ]
    }

    fn every_to_manager() -> Vec<ToManager> {
        vec![
            ToManager::hello(&[("--board", "7x6".into()), ("--threads", "4".into())]),
            ToManager::hello(&[]),
            ToManager::Answer(JobAnswer {
                id: 9,
                range: Some((-3, i32::MAX)),
                positions: 1 << 40,
                micros: 123,
            }),
            ToManager::Answer(JobAnswer {
                id: 10,
                range: None,
                positions: 0,
                micros: 0,
            }),
            ToManager::Bounds(vec![9; 40]),
        ]
    }

    /// Every message reads back as written, and its bytes cut short (or lengthened, where
    /// its layout is fixed) are refused, never misread.
    #[test]
    fn every_message_round_trips_and_a_cut_one_is_refused() {
        for message in every_to_worker() {
            let bytes = message.encode();
            assert_eq!(&message.payload()[..], &bytes[..], "{message:?}");
            assert_eq!(ToWorker::decode(message.tag(), &bytes), Ok(message.clone()));
            if !matches!(
                message,
                ToWorker::Bounds(_) | ToWorker::Passed(_) | ToWorker::Job { .. }
            ) {
                for cut in 0..bytes.len() {
                    assert!(ToWorker::decode(message.tag(), &bytes[..cut]).is_err());
                }
                let mut long = bytes.clone();
                long.push(0);
                assert!(
                    ToWorker::decode(message.tag(), &long).is_err(),
                    "{message:?}"
                );
            }
            if let ToWorker::Job { .. } = message {
                for cut in 0..16 {
                    assert!(ToWorker::decode(TAG_JOB, &bytes[..cut]).is_err());
                }
            }
            if let ToWorker::Passed(passed) = &message {
                for cut in 0..4 {
                    assert!(ToWorker::decode(TAG_PASSED, &bytes[..cut]).is_err());
                }
                assert_eq!(passed.journal(), &bytes[4..]);
            }
        }
        for message in every_to_manager() {
            let bytes = message.encode();
            assert_eq!(
                ToManager::decode(message.tag(), &bytes),
                Ok(message.clone())
            );
            if let ToManager::Answer(_) = message {
                for cut in 0..bytes.len() {
                    assert!(ToManager::decode(TAG_ANSWER, &bytes[..cut]).is_err());
                }
                let mut long = bytes.clone();
                long.push(0);
                assert!(ToManager::decode(TAG_ANSWER, &long).is_err());
                let mut flag = bytes.clone();
                flag[24] = 2;
                assert_eq!(
                    ToManager::decode(TAG_ANSWER, &flag),
                    Err(WireError::Flag(2))
                );
            }
        }
    }

    /// A tag sent the other way, or no message's, is refused; so is a job whose moves are
    /// not text.
    #[test]
    fn unknown_tags_and_bad_text_are_refused() {
        assert_eq!(
            ToWorker::decode(TAG_ANSWER, &[0; 33]),
            Err(WireError::Tag(11))
        );
        assert_eq!(ToManager::decode(TAG_JOB, &[0; 20]), Err(WireError::Tag(1)));
        assert_eq!(ToManager::decode(99, &[]), Err(WireError::Tag(99)));
        let mut job = ToWorker::Job {
            id: 1,
            window: Window { alpha: 0, beta: 1 },
            moves: "1".into(),
        }
        .encode();
        job.push(0xff);
        assert_eq!(
            ToWorker::decode(TAG_JOB, &job),
            Err(WireError::Text(TAG_JOB))
        );
        let mut hello = FORMAT.to_le_bytes().to_vec();
        hello.extend(b"no equals sign");
        assert_eq!(
            ToManager::decode(TAG_HELLO, &hello),
            Err(WireError::Text(TAG_HELLO))
        );
    }

    /// A handshake of another format is refused whatever follows it, with both formats in
    /// the message; the identities are compared name by name.
    #[test]
    fn the_handshake_refuses_another_format_and_another_start() {
        let mut other = (FORMAT + 1).to_le_bytes().to_vec();
        other.extend(b"anything at all \xff");
        let refused = ToManager::decode(TAG_HELLO, &other).unwrap_err();
        assert_eq!(refused, WireError::Format { theirs: FORMAT + 1 });
        assert!(
            refused
                .to_string()
                .contains(&format!("format {}", FORMAT + 1))
        );
        assert_eq!(
            ToManager::decode(TAG_HELLO, &[1, 0]),
            Err(WireError::Length {
                tag: TAG_HELLO,
                len: 2
            })
        );

        let mine = [
            ("--board", "7x6".to_string()),
            ("--threads", "4".to_string()),
        ];
        let same: Vec<(String, String)> =
            mine.iter().map(|(k, v)| ((*k).into(), v.clone())).collect();
        assert_eq!(check_hello(&mine, &same), Ok(()));
        let mut threads = same.clone();
        threads[1].1 = "2".into();
        assert_eq!(
            check_hello(&mine, &threads),
            Err("--threads 2 there, 4 here".into())
        );
        assert!(check_hello(&mine, &same[..1]).is_err());
        let mut more = same.clone();
        more.push(("--weak".into(), "true".into()));
        assert!(check_hello(&mine, &more).is_err());
    }
}
