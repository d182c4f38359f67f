// The browser game: a person against any player of the lab, through the JSON API.
//
// The page holds no rules: the server answers every move with the new position and the
// board after each seed sown ("frames"), which this script shows one at a time.
// ?delay=MS sets the pause between seeds (0: no animation, as the end-to-end test uses).
// The page keeps the positions of the game so far (the API is stateless), so Undo can
// take back the person's last move and the replies to it. Analysis and Hint ask
// /api/analyse for the value of every legal move of the person's position.
"use strict";

const params = new URLSearchParams(window.location.search);
const DELAY = Math.max(0, Number(params.get("delay") ?? 170) || 0);
const $ = (selector) => document.querySelector(selector);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const label = (house) => String.fromCharCode(97 + house); // 0 -> "a", as in the terminal

let players = [];
let game = null; // the last position the server sent
let seat = 0; // the person's player number
let opponent = "greedy";
let busy = false;
let token = 0; // bumped by each new game and each undo, so an old game's loop stops
let history = []; // {game, logged}: the position before each of the person's moves
let analysis = null; // {key, promise}: the analysis of the position shown, once asked

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = { message: response.statusText };
  }
  if (!response.ok) throw new Error(data.message || `HTTP ${response.status}`);
  return data;
}

function showError(error) {
  const box = $("#error");
  box.textContent = error ? String(error.message || error) : "";
  box.hidden = !error;
}

function setPhase(phase, text) {
  document.body.dataset.phase = phase;
  if (text !== undefined) $("#status").textContent = text;
}

// ----- players ------------------------------------------------------------------------

async function loadPlayers() {
  players = (await api("/api/players")).players;
  fillOpponents();
}

// The words for a player's strength: its level and rating in the shipped tournament,
// where that tournament's game is the one being played; else "not rated".
function strength(player, variant = $("#variant").value) {
  const rated = player.rating;
  if (!rated || !rated.game || !rated.game.startsWith(`${variant}(`)) return "not rated";
  return `${player.level}, rated ${rated.rating}`;
}

function fillOpponents() {
  const select = $("#opponent");
  const variant = $("#variant").value;
  const previous = select.value || "greedy";
  select.innerHTML = "";
  for (const player of players.filter((p) => p.variants.includes(variant))) {
    const option = document.createElement("option");
    option.value = player.spec;
    option.textContent = `${player.summary.split(";")[0]} (${strength(player, variant)})`;
    option.title = `${player.spec}: ${player.summary}`;
    select.append(option);
  }
  const specs = [...select.options].map((o) => o.value);
  select.value = specs.includes(previous) ? previous : specs.includes("greedy") ? "greedy" : specs[0];
  describeOpponent();
}

function describeOpponent() {
  const player = players.find((p) => p.spec === $("#opponent").value);
  const box = $("#opponent-summary");
  box.textContent = player ? `${player.spec}: ${player.summary}.` : "";
  if (player && strength(player) !== "not rated") {
    const r = player.rating;
    box.textContent += ` Rating ${r.rating} ± ${r.error} (${player.level}) over ${r.games} games of ${r.game}, ${r.date}.`;
    box.title = `The tournament: ${r.command}`;
  } else if (player) {
    box.textContent += " Not rated for this game.";
    box.title = "";
  }
}

function opponentName() {
  const player = players.find((p) => p.spec === opponent);
  return player ? `${opponent} (${strength(player, game.state.variant)})` : opponent;
}

// ----- the board ----------------------------------------------------------------------

function buildBoard(state) {
  const h = state.options.houses;
  const them = 1 - seat;
  const board = $("#board");
  board.innerHTML = "";
  board.style.setProperty("--houses", h);
  const pit = (index, classes, row, column, house) => {
    const el = document.createElement(house === undefined ? "div" : "button");
    el.className = `pit ${classes}`;
    el.dataset.index = index;
    el.style.gridRow = row;
    el.style.gridColumn = column;
    el.innerHTML = '<span class="seeds"></span><span class="count"></span><span class="value"></span>';
    if (house !== undefined) {
      el.type = "button";
      el.dataset.house = house;
      el.setAttribute("aria-label", `house ${label(house)}`);
      el.addEventListener("click", () => playHouse(house));
    }
    board.append(el);
    return el;
  };
  pit(them * (h + 1) + h, "store theirs", "1 / span 2", 1).dataset.label = "their store";
  for (let k = 0; k < h; k++) {
    const house = h - 1 - k; // the opponent's row runs right to left
    pit(them * (h + 1) + house, "house theirs", 1, k + 2).dataset.label = label(house);
    pit(seat * (h + 1) + k, "house mine", 2, k + 2, k).dataset.label = label(k);
  }
  pit(seat * (h + 1) + h, "store mine", "1 / span 2", h + 2).dataset.label = "your store";
}

function showBoard(board, changed = new Set()) {
  for (const el of document.querySelectorAll("#board .pit")) {
    const index = Number(el.dataset.index);
    const count = board[index];
    el.querySelector(".count").textContent = count;
    el.querySelector(".seeds").innerHTML = "<i></i>".repeat(Math.min(count, 24));
    el.classList.toggle("hit", changed.has(index));
  }
}

async function animate(before, frames, mine) {
  let last = before;
  for (const frame of frames) {
    const changed = new Set();
    frame.forEach((count, i) => count !== last[i] && changed.add(i));
    showBoard(frame, changed);
    last = frame;
    if (DELAY) await sleep(DELAY);
  }
  if (!mine && DELAY) await sleep(DELAY * 2);
  showBoard(last);
}

// ----- the game -----------------------------------------------------------------------

function yourTurn() {
  return Boolean(game) && !game.over && game.state.player === seat && !busy;
}

function update() {
  const h = game.state.options.houses;
  const [mine, theirs] = [game.scores[seat], game.scores[1 - seat]];
  $("#score").textContent = `You ${mine} · ${opponentName()} ${theirs}`;
  const turn = yourTurn();
  for (const el of document.querySelectorAll("#board .house.mine")) {
    const playable = turn && game.legal_moves.includes(Number(el.dataset.house));
    el.classList.toggle("playable", playable);
    el.disabled = !playable;
  }
  $("#undo").disabled = busy || history.length === 0;
  $("#hint").disabled = !turn;
  if (!turn) clearHint();
  if (game.over) {
    const result = game.winner === null ? "A draw" : game.winner === seat ? "You win" : `${opponent} wins`;
    setPhase("over", `${result}, ${mine} to ${theirs}. Press New game to play again.`);
    $("#score").dataset.result = game.winner === null ? "draw" : game.winner === seat ? "win" : "loss";
  } else if (turn) {
    delete $("#score").dataset.result;
    setPhase("your-turn", `Your move: click one of your houses (a..${label(h - 1)}).`);
  }
  showAnalysis();
}

// "c (capture 5, extra turn)": the move and what it did, in the server's words.
function moveWords(answer) {
  const said = answer.events ? answer.events.words : [];
  return label(answer.move) + (said.length ? ` (${said.join(", ")})` : "");
}

function logMove(who, answer) {
  const item = document.createElement("li");
  item.textContent = `${who}: ${moveWords(answer)}`;
  if (answer.evaluation) item.title = JSON.stringify(answer.evaluation);
  $("#moves").append(item);
  item.scrollIntoView({ block: "nearest" });
}

async function computerMoves(mine) {
  while (mine === token && !game.over && game.state.player !== seat) {
    setPhase("thinking", `${opponent} is thinking…`);
    const answer = await api("/api/play", { state: game.state, player: opponent });
    if (mine !== token) return;
    setPhase("animating", `${opponent} plays ${moveWords(answer)}.`);
    logMove(opponent, answer);
    await animate(game.state.board, answer.frames, false);
    if (mine !== token) return;
    game = answer;
  }
}

async function playHouse(house) {
  if (!yourTurn() || !game.legal_moves.includes(house)) return;
  const mine = token;
  busy = true;
  showError(null);
  history.push({ game, logged: $("#moves").children.length });
  update();
  try {
    setPhase("animating", `You play ${label(house)}.`);
    const answer = await api("/api/move", { state: game.state, move: house });
    if (mine !== token) return;
    setPhase("animating", `You play ${moveWords(answer)}.`);
    logMove("You", answer);
    await animate(game.state.board, answer.frames, true);
    if (mine !== token) return;
    game = answer;
    await computerMoves(mine);
  } catch (error) {
    showError(error);
  } finally {
    if (mine === token) {
      busy = false;
      update();
    }
  }
}

// Take back the person's last move and every reply to it: the position before it.
function undo() {
  if (busy || history.length === 0) return;
  token++; // nothing of the undone moves may still land
  const before = history.pop();
  clearHint();
  game = before.game;
  const log = $("#moves");
  while (log.children.length > before.logged) log.lastElementChild.remove();
  showError(null);
  showBoard(game.state.board);
  update();
}

async function newGame(event) {
  if (event) event.preventDefault();
  const mine = ++token;
  busy = true;
  showError(null);
  seat = Number($("#seat").value);
  opponent = $("#opponent").value;
  history = [];
  $("#moves").innerHTML = "";
  delete $("#score").dataset.result;
  try {
    game = await api("/api/new", { variant: $("#variant").value });
    if (mine !== token) return;
    buildBoard(game.state);
    showBoard(game.state.board);
    update();
    await computerMoves(mine);
  } catch (error) {
    showError(error);
  } finally {
    if (mine === token) {
      busy = false;
      if (game) update();
    }
  }
}

// ----- analysis and hint ---------------------------------------------------------------

// The analysis of the position shown (asked once per position, then kept).
function analysisOf(state) {
  const key = JSON.stringify(state);
  if (!analysis || analysis.key !== key) {
    analysis = { key, promise: api("/api/analyse", { state }).then((a) => a.analysis) };
    analysis.promise.catch(() => {
      analysis = null; // a failure is not kept: the next request asks again
    });
  }
  return analysis.promise;
}

function signed(value) {
  const text = Number.isInteger(value) ? String(Math.abs(value)) : Math.abs(value).toFixed(1);
  return (value > 0 ? "+" : value < 0 ? "−" : "±") + text;
}

async function showAnalysis() {
  const wanted = $("#analysis").checked && yourTurn();
  const note = $("#analysis-note");
  for (const el of document.querySelectorAll("#board .house.mine .value")) el.textContent = "";
  $("#board").dataset.analysis = wanted ? "pending" : "off";
  if (!wanted) {
    note.textContent = "";
    return;
  }
  const state = game.state;
  note.textContent = "Analysing…";
  try {
    const result = await analysisOf(state);
    if (game.state !== state || !$("#analysis").checked || !yourTurn()) return;
    for (const entry of result.moves) {
      const el = document.querySelector(`#board .house.mine[data-house="${entry.move}"] .value`);
      if (!el) continue;
      el.textContent = (entry.kind === "exact" ? "" : "≈") + signed(entry.value);
      el.dataset.kind = entry.kind;
    }
    $("#board").dataset.analysis = result.kind;
    const proven = result.moves.filter((m) => m.kind === "exact").length;
    const estimated = `≈ minimax's estimate (depth ${result.depth})`;
    note.textContent =
      "Each house shows the final margin its move leads to with best play: " +
      (proven === result.moves.length
        ? "proven by the solver."
        : proven
          ? `${estimated}, the others proven by the solver.`
          : `${estimated}.`);
  } catch (error) {
    note.textContent = "";
    showError(error);
  }
}

async function hint() {
  if (!yourTurn()) return;
  const state = game.state;
  showError(null);
  $("#hint").disabled = true;
  try {
    const result = await analysisOf(state);
    if (game.state !== state) return;
    const best = result.best[0];
    const el = document.querySelector(`#board .house.mine[data-house="${best}"]`);
    if (el) el.classList.add("hinted");
    const kind = result.kind === "exact" ? "with perfect play" : "by minimax's estimate";
    const value = result.moves.find((m) => m.move === best).value;
    $("#status").textContent = `Hint: ${label(best)}, final margin ${signed(value)} ${kind}.`;
  } catch (error) {
    showError(error);
  } finally {
    $("#hint").disabled = !yourTurn();
  }
}

function clearHint() {
  for (const el of document.querySelectorAll("#board .hinted")) el.classList.remove("hinted");
}

$("#setup").addEventListener("submit", newGame);
$("#variant").addEventListener("change", fillOpponents);
$("#opponent").addEventListener("change", describeOpponent);
$("#analysis").addEventListener("change", () => game && showAnalysis());
$("#hint").addEventListener("click", hint);
$("#undo").addEventListener("click", undo);
loadPlayers()
  .then(() => {
    document.body.dataset.ready = "true";
  })
  .catch(showError);
