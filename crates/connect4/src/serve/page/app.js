// transpo-c4's page: play Connect Four and see every column's score from the solver.
//
// The page keeps the game itself (the moves, whose turn, whether someone has four) and asks
// GET /api/solve?pos=MOVES[&weak=1] for the scores of the position shown. Scores follow
// Pons' convention, from the side to move's view: a win with one's k-th disc scores 22 - k,
// a loss to the opponent's k-th disc -(22 - k), a draw 0 (weak solves: only 1 / 0 / -1).
// The API refuses finished games, so the page detects four in a row and a full board itself.
//
// Structure: the board model (Game), pure helpers that put a score into words and colour,
// then the controller (state, rendering, the solve request, the solver's own moves, the URL).
//
// Test hooks: #board[data-state] is "solving" while a request runs, "ready" once the scores
// of the position shown have arrived, "over" when the game has ended; each
// [data-score-col="N"] holds its column's score in data-score ("" when there is none).
'use strict';

/** The board's size: the one place it is fixed. */
const WIDTH = 7;
const HEIGHT = 6;
const CELLS = WIDTH * HEIGHT;
/** Discs in a row that win. */
const CONNECT = 4;
/** A win with one's k-th disc scores SCORE_BASE - k (22 - k on a 7x6 board). */
const SCORE_BASE = (CELLS + 2) / 2;

/** Players: 1 moves first (red), 2 second (yellow). */
const PLAYERS = {
  1: { name: 'Red', css: 'red' },
  2: { name: 'Yellow', css: 'yellow' },
};

/** How long the solver waits before it plays, so one sees its move arrive. */
const SOLVER_DELAY_MS = 400;
/** The page gives up on one request after this long (the server has its own, shorter limit). */
const REQUEST_TIMEOUT_MS = 120000;

// ---------------------------------------------------------------------------------------------
// The board model
// ---------------------------------------------------------------------------------------------

/** A game: the moves played (1-based columns) and the discs they left. */
class Game {
  constructor() {
    /** The moves played, as 1-based columns. */
    this.moves = [];
    /** grid[col][row]: 0 empty, else the player (1 or 2); col 0-based, row 0 at the bottom. */
    this.grid = Array.from({ length: WIDTH }, () => new Array(HEIGHT).fill(0));
    /** The four (or more) discs that won, as [col, row] pairs, or null. */
    this.winLine = null;
    /** The winner (1 or 2), or 0. */
    this.winner = 0;
  }

  /**
   * The game after the move sequence `text` ("4453": 1-based column digits), or an Error
   * saying what is wrong with it: a character that is not 1..WIDTH, a full column, a move
   * after the game has ended, too many moves.
   */
  static parse(text) {
    const game = new Game();
    if (text.length > CELLS) {
      return new Error(`${text.length} moves, more than the ${CELLS} a game can have`);
    }
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      const col = ch >= '1' && ch <= '9' ? Number(ch) : NaN;
      if (!(col >= 1 && col <= WIDTH)) {
        return new Error(`move ${i + 1}: "${ch}" is not a column 1 to ${WIDTH}`);
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
    return col >= 1 && col <= WIDTH && this.height(col) < HEIGHT;
  }

  isFull() {
    return this.count === CELLS;
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

  /** The move sequence as text, "4453". */
  toString() {
    return this.moves.join('');
  }

  /**
   * The discs of `player` in a row of CONNECT or more through (col, row), in any of the four
   * directions, or null.
   */
  lineThrough(col, row, player) {
    const at = (c, r) => c >= 0 && c < WIDTH && r >= 0 && r < HEIGHT && this.grid[c][r] === player;
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
// Scores in words and colours (pure)
// ---------------------------------------------------------------------------------------------

/**
 * The move number (1..CELLS, counting both players' moves) on which a game ends, for a strong
 * `score` from the view of the side to move with `count` stones on the board, or null for a
 * draw. The side to move is the first player when `count` is even. A win with one's k-th disc
 * is game move 2k - 1 for the first player, 2k for the second.
 */
function endingMove(score, count) {
  if (score === 0) return null;
  const k = SCORE_BASE - Math.abs(score); // the winner's disc number: 22 - |score|
  const moverIsFirst = count % 2 === 0;
  const winnerIsFirst = score > 0 ? moverIsFirst : !moverIsFirst;
  return winnerIsFirst ? 2 * k - 1 : 2 * k;
}

/**
 * What `score` (side to move's view, `count` stones on the board) means: its kind ("win",
 * "draw", "loss"), words ("wins on move 23", or "win" when `weak`), and how soon the game
 * ends as a number in [0, 1] (1: on the very next moves), which sets the colour's depth.
 */
function describe(score, count, weak) {
  const kind = score > 0 ? 'win' : score < 0 ? 'loss' : 'draw';
  if (weak || score === 0) {
    return { kind, words: kind, soon: kind === 'draw' ? 0 : 0.6 };
  }
  const move = endingMove(score, count);
  const words = `${score > 0 ? 'wins' : 'loses'} on move ${move}`;
  // Moves still to play until the end, 1 (the next move) up to all the empty squares.
  const left = Math.max(1, move - count);
  const soon = 1 - (left - 1) / (CELLS - 1);
  return { kind, words, soon };
}

/** A score with its sign: "+2", "0", "-3". */
function signed(score) {
  return score > 0 ? `+${score}` : `${score}`;
}

/** Background and text colour of a score label: green wins, grey draws, red losses. */
function scoreColours(kind, soon) {
  if (kind === 'draw') return { background: 'hsl(220 8% 84%)', color: '#1d2330' };
  const hue = kind === 'win' ? 138 : 2;
  const lightness = 78 - 40 * Math.min(1, Math.max(0, soon)); // 78% late ... 38% at once
  return {
    background: `hsl(${hue} 62% ${lightness}%)`,
    color: lightness > 58 ? '#1d2330' : '#ffffff',
  };
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
  verdict: $('#verdict'),
  error: $('#error'),
  errorText: $('#error-text'),
  retry: $('#retry'),
  undo: $('#undo'),
  newGame: $('#new-game'),
  solverPlays: $('#solver-plays'),
  solverSide: $('#solver-side'),
  weak: $('#weak'),
  moves: $('#moves'),
  info: $('#info'),
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
  /** Counts the seconds of a running solve on the page (an interval), if any. */
  clock: 0,
  /** Whether the server has an opening book (from /api/health; null: not known). */
  serverHasBook: null,
};

/** Builds the columns, their squares and the score labels. */
function buildBoard() {
  for (let col = 1; col <= WIDTH; col++) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'column';
    button.dataset.col = String(col);
    const cells = [];
    for (let row = 0; row < HEIGHT; row++) {
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
    label.innerHTML = '<span class="score-number"></span><span class="score-words"></span>';
    ui.scores.append(label);
    ui.labels.push(label);
  }
}

/** Draws the board, the status, the move link and the score labels from `state`. */
function render() {
  const { game, result } = state;
  const over = game.isOver();
  const winning = new Set((game.winLine || []).map(([c, r]) => `${c},${r}`));
  const last = game.count > 0 ? game.moves[game.count - 1] : 0;

  ui.board.dataset.turn = String(game.turn);
  ui.board.classList.toggle('over', over);
  for (let col = 1; col <= WIDTH; col++) {
    const height = game.height(col);
    for (let row = 0; row < HEIGHT; row++) {
      const cell = ui.cells[col - 1][row];
      const player = game.grid[col - 1][row];
      cell.className = 'cell';
      if (player) cell.classList.add(PLAYERS[player].css);
      if (winning.has(`${col - 1},${row}`)) cell.classList.add('winning');
      const isLast = col === last && row === height - 1;
      if (isLast) cell.classList.add('last');
      if (isLast && state.animateLast) {
        cell.style.setProperty('--fall', String(HEIGHT - row));
        cell.classList.add('drop');
      }
      if (!over && row === height) cell.classList.add('next');
    }
    const button = ui.columns[col - 1];
    const playable = !over && height < HEIGHT;
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

  renderScores();
  ui.verdict.textContent = verdict();
  ui.info.textContent = result
    ? `${result.positions.toLocaleString('en')} positions in ${formatMicros(result.micros)}` +
      `${result.book ? ', from the opening book' : ''}`
    : '';
}

/** A column's aria-label: its number, its room, its score once known. */
function columnLabel(col, height) {
  if (height >= HEIGHT) return `Column ${col}, full`;
  const score = state.result ? state.result.columns[col - 1] : null;
  const what = typeof score === 'number'
    ? `: ${describe(score, state.game.count, state.result.weak).words}` : '';
  return `Column ${col}${what}`;
}

/** Fills the seven score labels from the answer for the position shown (or empties them). */
function renderScores() {
  const { game, result } = state;
  for (let col = 1; col <= WIDTH; col++) {
    const label = ui.labels[col - 1];
    const [number, words] = label.children;
    const score = result && !game.isOver() ? result.columns[col - 1] : null;
    if (typeof score !== 'number') {
      label.dataset.score = '';
      label.className = 'score empty';
      label.style.background = '';
      label.style.color = '';
      number.textContent = game.isOver() || !game.canPlay(col) ? '' : '·';
      words.textContent = game.isOver() ? '' : !game.canPlay(col) ? 'full' : '';
      label.removeAttribute('title');
      continue;
    }
    const { kind, words: text, soon } = describe(score, game.count, result.weak);
    const colours = scoreColours(kind, soon);
    label.dataset.score = String(score);
    label.className = `score ${kind}${result.best.includes(col) ? ' best' : ''}`;
    label.style.background = colours.background;
    label.style.color = colours.color;
    number.textContent = signed(score);
    words.textContent = text;
    label.title = `Column ${col}: score ${signed(score)}, ${text}`;
  }
}

/** One line on the position as a whole, once solved: who wins and when, with best play. */
function verdict() {
  const { game, result } = state;
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

/** The page's address for the position shown: "/?pos=4453", with "&weak=1" for weak solves. */
function pageUrl() {
  return `/?pos=${state.game}${ui.weak.checked ? '&weak=1' : ''}`;
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
  setBusy(true, 'solving');
  render();

  const controller = new AbortController();
  state.abort = controller;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, REQUEST_TIMEOUT_MS);
  const query = `pos=${game}${ui.weak.checked ? '&weak=1' : ''}`;
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
    } else if (!body || !Array.isArray(body.columns) || body.columns.length !== WIDTH) {
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
    setBusy(false, 'ready');
    render();
    scheduleSolverMove();
  } else {
    setBusy(false, 'error');
    render();
    showError(outcome.error, outcome.retry);
  }
}

/** Shows or hides the spinner (with the seconds spent) and sets #board's data-state. */
function setBusy(busy, boardState) {
  clearInterval(state.clock);
  ui.elapsed.textContent = '';
  if (busy) {
    const started = Date.now();
    state.clock = setInterval(() => {
      ui.elapsed.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
    }, 1000);
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
  const centre = (WIDTH + 1) / 2;
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

/** Reads ?pos= (and ?weak=) from the address; a bad position starts an empty board and says why. */
function loadFromUrl({ push }) {
  const params = new URLSearchParams(location.search);
  ui.weak.checked = ['1', 'true', ''].includes(params.get('weak'));
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

/** Asks /api/health whether the server has an opening book (for the advice on a 503). */
async function checkServer() {
  try {
    const response = await fetch('/api/health');
    const health = await response.json();
    state.serverHasBook = Boolean(health.book);
  } catch {
    state.serverHasBook = null; // Not known: no advice then.
  }
}

function init() {
  buildBoard();
  checkServer();
  ui.undo.addEventListener('click', undo);
  ui.newGame.addEventListener('click', () => show(new Game()));
  ui.retry.addEventListener('click', () => { clearError(); solve(); });
  ui.weak.addEventListener('change', () => show(state.game, { push: false }));
  for (const control of [ui.solverPlays, ui.solverSide]) {
    control.addEventListener('change', () => {
      ui.solverSide.disabled = !ui.solverPlays.checked;
      render();
      scheduleSolverMove();
    });
  }
  ui.solverSide.disabled = !ui.solverPlays.checked;
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLSelectElement) return;
    const col = Number(event.key);
    if (Number.isInteger(col) && col >= 1 && col <= WIDTH) {
      event.preventDefault();
      humanPlays(col);
    } else if (event.key === 'u' || event.key === 'U') {
      undo();
    }
  });
  // Back and forward walk through the positions shown.
  window.addEventListener('popstate', () => loadFromUrl({ push: false }));
  loadFromUrl({ push: false });
}

init();
