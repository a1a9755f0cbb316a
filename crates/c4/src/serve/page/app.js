// transpo-c4's page: play Connect Four and see every column's score from the solver.
//
// The page keeps the game itself (the moves, whose turn, whether someone has four) and asks
// GET /api/solve?pos=MOVES&weak=0|1 for the scores of the position shown. Scores follow
// Pons' convention, from the side to move's view: a win with the disc played when n discs
// are down scores floor((W*H + 1 - n) / 2) (22 - k for a win with one's k-th disc on 7x6),
// a loss the opposite, a draw 0 (weak solves: only 1 / 0 / -1). The API refuses finished
// games, so the page detects four in a row and a full board itself.
//
// The board is the server's: /api/health names its width and height (7x6 when it does not).
// With "Show scores" off (a game between two people) the page shows nothing of the solver's
// and asks it nothing, unless the solver plays the side to move.
//
// Structure: the board model (Game), pure helpers that put a score into words, then the
// controller (state, rendering, the solve request, the solver's own moves, the URL).
//
// Test hooks: #board[data-state] is "loading" until the board is drawn, "solving" while a
// request runs, "ready" once the scores of the position shown have arrived, "idle" when
// scores are off and no request runs, "over" when the game has ended; each
// [data-score-col="N"] holds its column's score in data-score ("" when none is shown).
'use strict';

/**
 * The board's size: 7x6 until /api/health names another (setSize, once, before the board is
 * drawn).
 */
const size = { width: 7, height: 6, cells: 42 };
/** Discs in a row that win. */
const CONNECT = 4;
/**
 * Columns' names in move sequences, the API's and the address's: 1-9, then a-d for columns
 * 10-13 (the solver's syntax). Its length is the widest board the page can draw.
 */
const COLUMN_NAMES = '123456789abcd';

/** Players: 1 moves first (red), 2 second (yellow). */
const PLAYERS = {
  1: { name: 'Red', css: 'red' },
  2: { name: 'Yellow', css: 'yellow' },
};

/** How long the solver waits before it plays, so one sees its move arrive. */
const SOLVER_DELAY_MS = 400;
/** The page gives up on one request after this long (the server has its own, shorter limit). */
const REQUEST_TIMEOUT_MS = 120000;
/** How often the time of a running solve is redrawn: often enough to see it run. */
const CLOCK_MS = 200;
/** How often screen readers hear that a solve still runs: seldom enough not to drown the rest. */
const NEWS_MS = 5000;
/** Where the page remembers the "Show scores" choice between visits. */
const HINTS_KEY = 'transpo-c4.hints';

/** Sets the board's size; `width` at most COLUMN_NAMES.length. */
function setSize(width, height) {
  size.width = width;
  size.height = height;
  size.cells = width * height;
}

/** Column `col`'s (1-based) name in a move sequence: "7", "a" for column 10. */
function columnName(col) {
  return COLUMN_NAMES[col - 1];
}

/** The 1-based column a move character or a key names ("4", "a" or "A"), or NaN. */
function columnOf(ch) {
  const i = ch.length === 1 ? COLUMN_NAMES.indexOf(ch.toLowerCase()) : -1;
  return i < 0 ? NaN : i + 1;
}

/** The columns' names in words: "1 to 7", "1 to 9 or a to d". */
function columnRange() {
  const last = columnName(size.width);
  return size.width <= 9 ? `1 to ${last}` : `1 to 9 or a${last === 'a' ? '' : ` to ${last}`}`;
}

// ---------------------------------------------------------------------------------------------
// The board model
// ---------------------------------------------------------------------------------------------

/** A game: the moves played (1-based columns) and the discs they left. */
class Game {
  constructor() {
    /** The moves played, as 1-based columns. */
    this.moves = [];
    /** grid[col][row]: 0 empty, else the player (1 or 2); col 0-based, row 0 at the bottom. */
    this.grid = Array.from({ length: size.width }, () => new Array(size.height).fill(0));
    /** The four (or more) discs that won, as [col, row] pairs, or null. */
    this.winLine = null;
    /** The winner (1 or 2), or 0. */
    this.winner = 0;
  }

  /**
   * The game after the move sequence `text` ("4453": 1-based columns, "a" to "d" for 10 to
   * 13), or an Error saying what is wrong with it: a character that names no column of the
   * board, a full column, a move after the game has ended, too many moves.
   */
  static parse(text) {
    const game = new Game();
    if (text.length > size.cells) {
      return new Error(`${text.length} moves, more than the ${size.cells} a game can have`);
    }
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      const col = columnOf(ch);
      if (!(col >= 1 && col <= size.width)) {
        return new Error(`move ${i + 1}: "${ch}" is not a column ${columnRange()}`);
      }
      if (game.isOver()) {
        return new Error(`move ${i + 1}: the game was already over`);
      }
      if (!game.canPlay(col)) {
        return new Error(`move ${i + 1}: column ${col} is full`);
      }
      game.play(col);
    }
    return game;
  }

  /** Stones on the board. */
  get count() {
    return this.moves.length;
  }

  /** The player to move (1 or 2). */
  get turn() {
    return this.count % 2 === 0 ? 1 : 2;
  }

  /** Discs in column `col` (1-based). */
  height(col) {
    return this.grid[col - 1].filter((p) => p !== 0).length;
  }

  /** Whether column `col` (1-based) has room. */
  canPlay(col) {
    return col >= 1 && col <= size.width && this.height(col) < size.height;
  }

  isFull() {
    return this.count === size.cells;
  }

  isOver() {
    return this.winner !== 0 || this.isFull();
  }

  /** Drops the side to move's disc in column `col` (1-based); the caller checks canPlay. */
  play(col) {
    const row = this.height(col);
    const player = this.turn;
    this.grid[col - 1][row] = player;
    this.moves.push(col);
    const line = this.lineThrough(col - 1, row, player);
    if (line) {
      this.winner = player;
      this.winLine = line;
    }
  }

  /** The game with its last move taken back (a new Game: replaying is cheap). */
  undone() {
    const game = new Game();
    for (const col of this.moves.slice(0, -1)) game.play(col);
    return game;
  }

  /** The move sequence as text, "4453" ("4a" for column 10). */
  toString() {
    return this.moves.map(columnName).join('');
  }

  /**
   * The discs of `player` in a row of CONNECT or more through (col, row), in any of the four
   * directions, or null.
   */
  lineThrough(col, row, player) {
    const at = (c, r) =>
      c >= 0 && c < size.width && r >= 0 && r < size.height && this.grid[c][r] === player;
    for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
      const line = [[col, row]];
      for (const sign of [1, -1]) {
        let c = col + sign * dc;
        let r = row + sign * dr;
        while (at(c, r)) {
          line.push([c, r]);
          c += sign * dc;
          r += sign * dr;
        }
      }
      if (line.length >= CONNECT) return line;
    }
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Scores in words (pure)
// ---------------------------------------------------------------------------------------------

/**
 * The move number (1..cells, counting both players' discs) on which a game ends, for a strong
 * `score` from the view of the side to move with `count` discs on the board, or null for a
 * draw. A win with disc m scores floor((cells + 2 - m) / 2), so m is cells + 2 - 2|score| or
 * one less, whichever the winner plays; the side to move plays the odd discs when `count` is
 * even. (The solver's score::last_move, restated for the page.)
 */
function endingMove(score, count) {
  if (score === 0) return null;
  const latest = size.cells + 2 - 2 * Math.abs(score);
  const winnerPlaysOdd = (count % 2 === 0) === (score > 0);
  return (latest % 2 === 1) === winnerPlaysOdd ? latest : latest - 1;
}

/**
 * A win with one's k-th disc scores scoreBase(player) - k: disc m = 2k - 1 (first player) or
 * 2k (second) scores floor((cells + 2 - m) / 2). 22 for both on 7x6; on a board of an odd
 * number of squares the first player's base is one more.
 */
function scoreBase(player) {
  return Math.floor((size.cells + (player === 1 ? 3 : 2)) / 2);
}

/**
 * What `score` (side to move's view, `count` discs on the board) means: its kind ("win",
 * "draw", "loss"), words ("wins on move 23", or "win" when `weak`), and how soon the game
 * ends as a number in [0, 1] (1: on the very next moves; 0 for a draw or when not known).
 */
function describe(score, count, weak) {
  const kind = score > 0 ? 'win' : score < 0 ? 'loss' : 'draw';
  if (weak || score === 0) {
    return { kind, words: kind, soon: 0 };
  }
  const move = endingMove(score, count);
  const words = `${score > 0 ? 'wins' : 'loses'} on move ${move}`;
  // Moves still to play until the end, 1 (the next move) up to all the empty squares.
  const left = Math.max(1, move - count);
  const soon = 1 - (left - 1) / Math.max(1, size.cells - 1);
  return { kind, words, soon };
}

/** A score with its sign: "+2", "0", "-3". */
function signed(score) {
  return score > 0 ? `+${score}` : `${score}`;
}

// ---------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------

const $ = (selector) => document.querySelector(selector);

const ui = {
  board: $('#board'),
  scores: $('#scores'),
  status: $('#status'),
  turnDisc: $('#turn-disc'),
  spinner: $('#spinner'),
  elapsed: $('#elapsed'),
  solveNews: $('#solve-news'),
  verdict: $('#verdict'),
  error: $('#error'),
  errorText: $('#error-text'),
  retry: $('#retry'),
  undo: $('#undo'),
  newGame: $('#new-game'),
  solverPlays: $('#solver-plays'),
  solverSide: $('#solver-side'),
  hints: $('#hints'),
  weak: $('#weak'),
  weakOption: $('#weak-option'),
  moves: $('#moves'),
  info: $('#info'),
  legend: $('#legend'),
  boardSize: $('#board-size'),
  keysHelp: $('#keys-help'),
  scoreHelp: $('#score-help'),
  /** columns[c - 1]: the button of column c; cells[c - 1][row]: its squares, row 0 at the bottom. */
  columns: [],
  cells: [],
  labels: [],
};

const state = {
  game: new Game(),
  /** The answer of /api/solve for the position shown, once it has arrived. */
  result: null,
  /** Numbers every solve request, so that a late answer to an old position is dropped. */
  requestId: 0,
  /** Aborts the request under way. */
  abort: null,
  /** The solver's pending move (a timer), if any. */
  solverTimer: 0,
  /** Whether the last move was just played (then its disc drops in). */
  animateLast: false,
  /** Redraws the time of a running solve (an interval), if any. */
  clock: 0,
  /** Whether the server has an opening book (from /api/health; null: not known). */
  serverHasBook: null,
  /**
   * Whether the server solves weakly when a request names no strength (`serve --weak`, its
   * /api/health `strength`): the weak switch starts so, and the page always names the
   * strength it asks for, so that what it shows is what the switch says.
   */
  serverWeak: false,
};

/** Builds the columns, their squares and the score labels, and the help for this board. */
function buildBoard() {
  const root = document.documentElement.style;
  // On :root, where style.css works out the squares' size from them.
  root.setProperty('--columns', String(size.width));
  root.setProperty('--rows', String(size.height));
  ui.boardSize.textContent = `${size.width} × ${size.height}`;
  const keys = size.width <= 9 ? `1 to ${size.width}` : `1 to 9, a to ${columnName(size.width)}`;
  ui.board.setAttribute('aria-label', `Board: choose a column to drop a disc (keys ${keys})`);
  ui.keysHelp.replaceChildren(...keyRanges());
  ui.scoreHelp.replaceChildren(...scoreHelp());

  for (let col = 1; col <= size.width; col++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'column';
    button.dataset.col = String(col);
    const cells = [];
    for (let row = 0; row < size.height; row++) {
      const cell = document.createElement('span');
      cell.className = 'cell';
      cell.dataset.row = String(row);
      cells.push(cell);
    }
    // Top row first in the DOM, so the column reads top to bottom.
    for (const cell of [...cells].reverse()) button.append(cell);
    button.addEventListener('click', () => humanPlays(col));
    ui.board.append(button);
    ui.columns.push(button);
    ui.cells.push(cells);

    const label = document.createElement('div');
    label.className = 'score';
    label.dataset.scoreCol = String(col);
    label.innerHTML = '<span class="score-number"></span><span class="score-words"></span>' +
      '<span class="score-soon" aria-hidden="true"></span>';
    ui.scores.append(label);
    ui.labels.push(label);
  }
}

/** The footer's keys: <kbd>1</kbd>–<kbd>7</kbd>, and <kbd>a</kbd>–<kbd>d</kbd> past 9. */
function keyRanges() {
  const kbd = (text) => Object.assign(document.createElement('kbd'), { textContent: text });
  const range = (first, last) => (first === last ? [kbd(first)] : [kbd(first), '–', kbd(last)]);
  if (size.width <= 9) return range('1', columnName(size.width));
  return [...range('1', '9'), ', ', ...range('a', columnName(size.width))];
}

/** The footer's sentence on scores, with this board's bases: "22 − k" on 7x6. */
function scoreHelp() {
  const k = () => Object.assign(document.createElement('var'), { textContent: 'k' });
  const minus = (base) => `${base}\u00a0−\u00a0`;
  const [first, second] = [scoreBase(1), scoreBase(2)];
  const start = ["Scores are the side to move's: a win with one's ", k(), '-th disc scores '];
  if (first === second) {
    return [...start, minus(first), k(), `, a loss −(${minus(first)}`, k(), '), a draw 0.'];
  }
  return [
    ...start, minus(first), k(), ` for ${PLAYERS[1].name}, ${minus(second)}`, k(),
    ` for ${PLAYERS[2].name}, a loss the winner's score negated, a draw 0.`,
  ];
}

/** Whether the page shows the solver's scores ("Show scores"). */
function hintsOn() {
  return ui.hints.checked;
}

/** The answer for the position shown, if it is to be shown: none with scores off. */
function shownResult() {
  return hintsOn() ? state.result : null;
}

/** Whether the page needs the solver for `game`: to show scores, or to play its move. */
function needsSolve(game) {
  return !game.isOver() && (hintsOn() || solverSide() === game.turn);
}

/** Draws the board, the status, the move link and the score labels from `state`. */
function render() {
  const { game } = state;
  const result = shownResult();
  const over = game.isOver();
  const winning = new Set((game.winLine || []).map(([c, r]) => `${c},${r}`));
  const last = game.count > 0 ? game.moves[game.count - 1] : 0;

  ui.board.dataset.turn = String(game.turn);
  ui.board.classList.toggle('over', over);
  for (let col = 1; col <= size.width; col++) {
    const height = game.height(col);
    for (let row = 0; row < size.height; row++) {
      const cell = ui.cells[col - 1][row];
      const player = game.grid[col - 1][row];
      cell.className = 'cell';
      if (player) cell.classList.add(PLAYERS[player].css);
      if (winning.has(`${col - 1},${row}`)) cell.classList.add('winning');
      const isLast = col === last && row === height - 1;
      if (isLast) cell.classList.add('last');
      if (isLast && state.animateLast) {
        cell.style.setProperty('--fall', String(size.height - row));
        cell.classList.add('drop');
      }
      if (!over && row === height) cell.classList.add('next');
    }
    const button = ui.columns[col - 1];
    const playable = !over && height < size.height;
    button.setAttribute('aria-disabled', String(!playable));
    button.setAttribute('aria-label', columnLabel(col, height));
  }
  state.animateLast = false;

  // Whose turn, or the result.
  if (game.winner) {
    ui.status.textContent = `${PLAYERS[game.winner].name} wins`;
  } else if (over) {
    ui.status.textContent = 'Draw';
  } else {
    const solverToMove = solverSide() === game.turn;
    ui.status.textContent = `${PLAYERS[game.turn].name} to move${solverToMove ? ' (solver)' : ''}`;
  }
  ui.turnDisc.className = `turn-disc ${game.winner ? PLAYERS[game.winner].css : over ? 'draw' : PLAYERS[game.turn].css}`;

  // The move sequence, as a link that restores it.
  const text = game.toString();
  ui.moves.textContent = text || '(empty board)';
  ui.moves.setAttribute('href', pageUrl());
  ui.undo.disabled = game.count === 0;

  // With scores off, nothing that speaks of them either.
  ui.legend.hidden = !hintsOn();
  ui.weakOption.hidden = !hintsOn();
  ui.scoreHelp.hidden = !hintsOn();
  renderScores();
  ui.verdict.textContent = verdict();
  ui.info.textContent = result
    ? `${result.positions.toLocaleString('en')} positions in ${formatMicros(result.micros)}` +
      `${result.book ? ', from the opening book' : ''}`
    : '';
}

/** A column's aria-label: its number, its room, its score once known and shown. */
function columnLabel(col, height) {
  const name = col > 9 ? `Column ${col} (key ${columnName(col)})` : `Column ${col}`;
  if (height >= size.height) return `${name}, full`;
  const result = shownResult();
  const score = result ? result.columns[col - 1] : null;
  const what = typeof score === 'number'
    ? `: ${describe(score, state.game.count, result.weak).words}` : '';
  return `${name}${what}`;
}

/**
 * Fills the score labels from the answer for the position shown (or empties them). The
 * colours are style.css's, by kind: no colour is set here.
 */
function renderScores() {
  const { game } = state;
  const result = shownResult();
  for (let col = 1; col <= size.width; col++) {
    const label = ui.labels[col - 1];
    const [number, words] = label.children;
    const score = result && !game.isOver() ? result.columns[col - 1] : null;
    if (typeof score !== 'number') {
      label.dataset.score = '';
      label.className = 'score empty';
      label.style.removeProperty('--soon');
      // A dot for a score to come; with scores off none comes.
      number.textContent = game.isOver() || !game.canPlay(col) || !hintsOn() ? '' : '·';
      words.textContent = game.isOver() ? '' : !game.canPlay(col) ? 'full' : '';
      label.removeAttribute('title');
      continue;
    }
    const { kind, words: text, soon } = describe(score, game.count, result.weak);
    label.dataset.score = String(score);
    label.className = `score ${kind}${result.best.includes(col) ? ' best' : ''}`;
    label.style.setProperty('--soon', soon.toFixed(3));
    number.textContent = signed(score);
    words.textContent = text;
    label.title = `Column ${col}: score ${signed(score)}, ${text}`;
  }
}

/** One line on the position as a whole, once solved: who wins and when, with best play. */
function verdict() {
  const { game } = state;
  const result = shownResult();
  if (game.isOver()) {
    return game.winner
      ? `${PLAYERS[game.winner].name} connected four on move ${game.count}.`
      : 'The board is full: nobody connected four.';
  }
  if (!result) return '';
  const mover = PLAYERS[game.turn].name;
  const other = PLAYERS[3 - game.turn].name;
  const best = `best: column${result.best.length > 1 ? 's' : ''} ${result.best.join(', ')}`;
  if (result.score === 0) return `With best play it is a draw (${best}).`;
  const winner = result.score > 0 ? mover : other;
  if (result.weak) return `With best play ${winner} wins (${best}).`;
  const move = endingMove(result.score, game.count);
  return `With best play ${winner} wins on move ${move} (${best}).`;
}

function formatMicros(micros) {
  return micros < 1000 ? `${micros} µs` : micros < 1e6 ? `${(micros / 1000).toFixed(1)} ms`
    : `${(micros / 1e6).toFixed(2)} s`;
}

/** The side the solver plays (1 or 2), or 0 when it plays neither. */
function solverSide() {
  return ui.solverPlays.checked ? Number(ui.solverSide.value) : 0;
}

/**
 * The page's address for the position shown: "/?pos=4453", with "&weak=1" for weak solves
 * ("&weak=0" for strong ones where the server's own are weak) and "&hints=0" with scores off
 * (a link to a game between people keeps them off).
 */
function pageUrl() {
  const weak = ui.weak.checked === state.serverWeak ? '' : `&weak=${ui.weak.checked ? 1 : 0}`;
  return `/?pos=${state.game}${weak}${hintsOn() ? '' : '&hints=0'}`;
}

function showError(text, canRetry) {
  ui.errorText.textContent = text;
  ui.retry.hidden = !canRetry;
  ui.error.hidden = false;
}

function clearError() {
  ui.errorText.textContent = '';
  ui.error.hidden = true;
}

/**
 * Shows `game` (after a move, an undo, a new game, a load): redraws, records it in the URL
 * (`push`: as a new history entry, else in place), and asks for its scores.
 */
function show(game, { push = true } = {}) {
  clearTimeout(state.solverTimer);
  state.game = game;
  state.result = null;
  clearError();
  if (push) {
    history.pushState(null, '', pageUrl());
  } else {
    history.replaceState(null, '', pageUrl());
  }
  solve();
}

/** Asks the API for the scores of the position shown, dropping any earlier request. */
async function solve() {
  if (state.abort) state.abort.abort();
  state.abort = null;
  const { game } = state;
  const id = ++state.requestId;
  if (game.isOver()) {
    setBusy(false, 'over');
    render();
    return;
  }
  if (!needsSolve(game)) {
    setBusy(false, 'idle');
    render();
    return;
  }
  setBusy(true, 'solving');
  render();

  const controller = new AbortController();
  state.abort = controller;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, REQUEST_TIMEOUT_MS);
  // The strength always named: the server's own may differ (`serve --weak`).
  const query = `pos=${game}&weak=${ui.weak.checked ? 1 : 0}`;
  let outcome;
  try {
    const response = await fetch(`/api/solve?${query}`, { signal: controller.signal });
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const why = body && body.error ? body.error : `HTTP ${response.status}`;
      const slow = response.status === 503 && state.serverHasBook === false
        ? ' Early positions take long without an opening book (transpo-c4 serve --book FILE).'
        : '';
      outcome = { error: `The solver said: ${why}.${slow}`, retry: response.status === 503 };
    } else if (!body || !Array.isArray(body.columns) || body.columns.length !== size.width) {
      outcome = { error: 'The solver sent an answer this page does not understand.', retry: true };
    } else {
      outcome = { result: body };
    }
  } catch (e) {
    if (id !== state.requestId) return; // Replaced by a newer request: nothing to show.
    outcome = {
      error: timedOut ? 'No answer from the solver in time.' : `Cannot reach the solver (${e.message}).`,
      retry: true,
    };
  } finally {
    clearTimeout(timer);
  }
  if (id !== state.requestId) return; // The position changed meanwhile.
  state.abort = null;
  if (outcome.result) {
    state.result = outcome.result;
    setBusy(false, hintsOn() ? 'ready' : 'idle');
    render();
    scheduleSolverMove();
  } else {
    setBusy(false, 'error');
    render();
    showError(outcome.error, outcome.retry);
  }
}

/**
 * Shows or hides the spinner with the time spent ("solving… 3.2 s", redrawn every CLOCK_MS;
 * screen readers hear "Solving…" after a second, then every NEWS_MS), and sets #board's
 * data-state.
 */
function setBusy(busy, boardState) {
  clearInterval(state.clock);
  ui.elapsed.textContent = '';
  ui.solveNews.textContent = '';
  if (busy) {
    const started = Date.now();
    let told = 0; // Seconds at which screen readers were last told.
    const tick = () => {
      const seconds = (Date.now() - started) / 1000;
      ui.elapsed.textContent = `solving… ${seconds.toFixed(1)} s`;
      if (told === 0 && seconds >= 1) {
        told = 1;
        ui.solveNews.textContent = 'Solving…';
      } else if (seconds - told >= NEWS_MS / 1000) {
        told = Math.floor(seconds);
        ui.solveNews.textContent = `Still solving: ${told} seconds`;
      }
    };
    tick();
    state.clock = setInterval(tick, CLOCK_MS);
  }
  ui.spinner.hidden = !busy;
  ui.board.dataset.state = boardState;
  ui.board.setAttribute('aria-busy', String(busy));
}

/** When the solver plays the side to move and the scores are in, it plays a best column. */
function scheduleSolverMove() {
  clearTimeout(state.solverTimer);
  const { game, result } = state;
  if (!result || game.isOver() || solverSide() !== game.turn) return;
  const id = state.requestId;
  state.solverTimer = setTimeout(() => {
    // Only if nothing changed since: same position, solver still on for this side.
    if (id !== state.requestId || solverSide() !== state.game.turn) return;
    play(pickBest(result.best));
  }, SOLVER_DELAY_MS);
}

/** Of the best columns, the one nearest the centre (the usual choice, and deterministic). */
function pickBest(best) {
  const centre = (size.width + 1) / 2;
  return [...best].sort((a, b) => Math.abs(a - centre) - Math.abs(b - centre) || a - b)[0];
}

/** Plays column `col` if it can be played: after the game has ended or in a full column, not. */
function play(col) {
  const { game } = state;
  if (game.isOver() || !game.canPlay(col)) return;
  const next = Game.parse(game.toString() + col); // A copy with the move: the old one stays intact.
  state.animateLast = true;
  show(next);
}

/** A click or a key: plays unless it is the solver's turn. */
function humanPlays(col) {
  if (solverSide() === state.game.turn) return;
  play(col);
}

/** Undo: takes back one move, or two when the solver would just play the same one again. */
function undo() {
  let game = state.game;
  if (game.count === 0) return;
  game = game.undone();
  if (solverSide() === game.turn && game.count > 0) game = game.undone();
  show(game);
}

/**
 * Reads ?pos=, ?weak= and ?hints= from the address (without ?weak=, the server's own
 * strength; without ?hints=, the choice remembered from an earlier visit, scores on if none);
 * a bad position starts an empty board and says why.
 */
function loadFromUrl({ push }) {
  const params = new URLSearchParams(location.search);
  ui.weak.checked = params.has('weak')
    ? ['1', 'true', ''].includes(params.get('weak'))
    : state.serverWeak;
  const hints = params.has('hints') ? params.get('hints') : remembered(HINTS_KEY);
  ui.hints.checked = !['0', 'false'].includes(hints);
  const text = (params.get('pos') || '').trim();
  let game = Game.parse(text);
  let problem = '';
  if (game instanceof Error) {
    problem = `Cannot show ?pos=${text}: ${game.message}. Starting from the empty board.`;
    game = new Game();
  }
  show(game, { push });
  if (problem) showError(problem, false);
}

/** `key`'s value in localStorage, or null (also where storage is off: private windows). */
function remembered(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Not remembered, then: the switch still works for this visit.
  }
}

/**
 * Asks /api/health for the board's size (7x6 when it names none, as older servers do),
 * whether the server has an opening book (for the advice on a 503) and the strength it
 * solves with when asked none (the weak switch's start). Returns what is wrong with the size
 * named, or ''.
 */
async function checkServer() {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10000);
  try {
    const response = await fetch('/api/health', { signal: controller.signal });
    const health = await response.json();
    state.serverHasBook = Boolean(health.book);
    state.serverWeak = health.strength === 'weak';
    const { width, height } = health;
    if (Number.isInteger(width) && Number.isInteger(height)) {
      if (width >= CONNECT && width <= COLUMN_NAMES.length && height >= CONNECT) {
        setSize(width, height);
      } else {
        return `The server's board, ${width}x${height}, is one this page cannot draw.`;
      }
    }
  } catch {
    state.serverHasBook = null; // Not known: no advice then, and the 7x6 board.
  } finally {
    clearTimeout(timer);
  }
  return '';
}

/** Scores on or off: remembered, in the address, and the solves that this asks or saves. */
function hintsChanged() {
  remember(HINTS_KEY, hintsOn() ? '1' : '0');
  history.replaceState(null, '', pageUrl());
  if (state.abort && needsSolve(state.game)) {
    render(); // The scores are on their way.
  } else if (state.result) {
    setBusy(false, hintsOn() ? 'ready' : 'idle'); // The scores are here, shown or not.
    render();
  } else {
    solve(); // Asks for them now, or drops a request no longer needed.
  }
}

/** Arrow keys, Home and End move the focus between the columns. */
function moveFocus(event) {
  const at = ui.columns.indexOf(event.target);
  if (at < 0) return;
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: size.width - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  ui.columns[Math.min(size.width - 1, Math.max(0, to))].focus();
}

async function init() {
  const problem = await checkServer();
  buildBoard();
  ui.undo.addEventListener('click', undo);
  ui.newGame.addEventListener('click', () => show(new Game()));
  ui.retry.addEventListener('click', () => { clearError(); solve(); });
  ui.weak.addEventListener('change', () => show(state.game, { push: false }));
  ui.hints.addEventListener('change', hintsChanged);
  for (const control of [ui.solverPlays, ui.solverSide]) {
    control.addEventListener('change', () => {
      ui.solverSide.disabled = !ui.solverPlays.checked;
      // With scores off, the solver's turn is the one time a solve is needed.
      if (!state.result && !state.abort && needsSolve(state.game)) {
        solve();
      } else {
        render();
      }
      scheduleSolverMove();
    });
  }
  ui.solverSide.disabled = !ui.solverPlays.checked;
  ui.board.addEventListener('keydown', moveFocus);
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLSelectElement) return;
    const col = columnOf(event.key);
    if (col >= 1 && col <= size.width) {
      event.preventDefault();
      humanPlays(col);
    } else if (event.key === 'u' || event.key === 'U') {
      undo();
    }
  });
  // Back and forward walk through the positions shown.
  window.addEventListener('popstate', () => loadFromUrl({ push: false }));
  loadFromUrl({ push: false });
  if (problem) showError(problem, false);
}

init();
