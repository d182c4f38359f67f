// The browser game: a person against any player of the lab, through the JSON API.
//
// The page holds no rules: the server answers every move with the new position and, in
// a sowing game, the board after each seed sown ("frames"), which this script shows one
// at a time. In Tak the position lists every square's stack and the legal moves by name
// (PTN): an empty square plays the placement of the chosen kind, a stack of the person's
// lists its moves as buttons.
// ?delay=MS sets the pause between seeds (0: no animation, as the end-to-end test uses).
// The page keeps the positions of the game so far (the API is stateless), so Undo can
// take back the person's last move and the replies to it. Analysis and Hint ask
// /api/analyse for the value of every legal move of the person's position. A search the
// server refuses for now (503 or 429, busy with other games) is asked again after the
// answer's Retry-After, the status saying that the page waits.
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
let placeKind = "F"; // Tak: the kind of piece a click on an empty square places
let selected = null; // Tak: the square whose stack moves are listed
const KINDS = { F: "flat", S: "wall", C: "capstone" };
const COLOURS = ["white", "black"];
const SHIFT = /^\d?([a-h][1-8])[+\-<>]\d*$/; // a stack move's PTN: its square

const BUSY = [429, 503]; // a search refused for now: the answer's Retry-After says how long
const MAX_WAITS = 60; // refusals of one request before the page gives up and says so

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  for (let waits = 0; ; waits++) {
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = { message: response.statusText };
    }
    const retry = Number(response.headers.get("Retry-After")) || 0;
    if (BUSY.includes(response.status) && retry > 0 && waits < MAX_WAITS) {
      await waitBusy(retry);
      continue;
    }
    if (!response.ok) throw new Error(data.message || `HTTP ${response.status}`);
    return data;
  }
}

// The server is busy with other searches: show that the page waits, then ask again.
async function waitBusy(seconds) {
  const phase = document.body.dataset.phase;
  const text = $("#status").textContent;
  for (let left = seconds; left > 0; left--) {
    setPhase("waiting", `The server is busy with other games: asking again in ${left} s…`);
    await sleep(1000);
  }
  if (document.body.dataset.phase === "waiting") setPhase(phase, text);
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

// The rule options of the game the form would start (Kalah and Sungka: their defaults).
function chosenOptions(variant = $("#variant").value) {
  return variant === "tak" ? { size: Number($("#size").value) } : {};
}

// Whether `player` plays the game the form would start: its variant, and where it was
// built for some boards only (a network's), one of them.
function playsChosen(player, variant) {
  if (!player.variants.includes(variant)) return false;
  const boards = (player.boards || []).filter((b) => b.variant === variant);
  if (!player.boards || player.boards.length === 0) return true;
  const options = chosenOptions(variant);
  return boards.some((b) => Object.entries(options).every(([k, v]) => !(k in b) || b[k] === v));
}

function fillOpponents() {
  const select = $("#opponent");
  const variant = $("#variant").value;
  const previous = select.value || "greedy";
  select.innerHTML = "";
  for (const player of players.filter((p) => playsChosen(p, variant))) {
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

function isTak(position = game) {
  return Boolean(position) && position.state.game === "tak";
}

function buildBoard(state) {
  document.body.dataset.game = state.game || "kalah";
  $("#board").className = "board";
  if (state.game === "tak") return buildTak(state);
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

// The board of a position: a sowing board's counts, or Tak's stacks.
function render(position) {
  if (isTak(position)) showTak(position);
  else showBoard(position.state.board);
}

// ----- Tak ------------------------------------------------------------------------------

function buildTak(state) {
  const n = state.options.size;
  const board = $("#board");
  board.innerHTML = "";
  board.classList.add("tak");
  board.style.setProperty("--size", n);
  for (let row = n - 1; row >= 0; row--) {
    for (let column = 0; column < n; column++) {
      const el = document.createElement("button");
      const name = `${label(column)}${row + 1}`;
      el.type = "button";
      el.className = "square";
      el.dataset.square = row * n + column;
      el.dataset.name = name;
      el.setAttribute("aria-label", `square ${name}`);
      el.innerHTML = `<span class="under"></span><span class="piece"></span><span class="height"></span><span class="coord">${name}</span>`;
      el.addEventListener("click", () => clickSquare(name));
      board.append(el);
    }
  }
}

// Each square: its top piece (colour and kind), the stack's height and the colours of
// the pieces under the top (bottom first, the last 10).
function showTak(position) {
  for (const el of document.querySelectorAll("#board .square")) {
    const stack = position.board[Number(el.dataset.square)];
    const top = stack[stack.length - 1];
    el.querySelector(".piece").className = top ? `piece ${COLOURS[top[0]]} ${KINDS[top[1]]}` : "piece";
    el.querySelector(".height").textContent = stack.length > 1 ? stack.length : "";
    el.querySelector(".under").innerHTML = stack
      .slice(-11, -1)
      .map(([player]) => `<i class="${COLOURS[player]}"></i>`)
      .join("");
    el.dataset.stack = stack.map(([player, kind]) => `${player + 1}${kind === "F" ? "" : kind}`).join("");
    el.title = top
      ? `${el.dataset.name}: ${stack.length} piece(s), ${COLOURS[top[0]]} ${KINDS[top[1]]} on top`
      : `${el.dataset.name}: empty`;
  }
}

// The placement of the chosen kind on `square`, if legal ("a1", "Sa1", "Ca1").
function placement(square) {
  const name = (placeKind === "F" ? "" : placeKind) + square;
  return game.names.includes(name) ? name : null;
}

function movesFrom(square) {
  return game.names.filter((name) => SHIFT.exec(name)?.[1] === square);
}

function clickSquare(square) {
  if (!yourTurn()) return;
  const place = placement(square);
  if (place) return playMove(place);
  selected = movesFrom(square).length ? square : null;
  update();
}

function showStackMoves() {
  const box = $("#stack-moves");
  box.innerHTML = "";
  for (const el of document.querySelectorAll("#board .square")) {
    el.classList.toggle("selected", el.dataset.name === selected);
  }
  if (!selected || !yourTurn()) return;
  const caption = document.createElement("span");
  caption.textContent = `Moves of the stack on ${selected}:`;
  box.append(caption);
  for (const name of movesFrom(selected)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "stack-move";
    button.textContent = name;
    button.addEventListener("click", () => playMove(name));
    box.append(button);
  }
}

function updateTak() {
  const turn = yourTurn();
  const kinds = new Set(game.names.filter((n) => !SHIFT.test(n)).map((n) => (/^[SC]/.test(n) ? n[0] : "F")));
  if (!kinds.has(placeKind)) placeKind = "F";
  for (const button of document.querySelectorAll("#place-kind .kind")) {
    button.disabled = !turn || !kinds.has(button.dataset.kind);
    button.setAttribute("aria-pressed", String(button.dataset.kind === placeKind));
  }
  for (const el of document.querySelectorAll("#board .square")) {
    const playable = turn && Boolean(placement(el.dataset.name) || movesFrom(el.dataset.name).length);
    el.classList.toggle("playable", playable);
    el.disabled = !playable;
  }
  if (!turn) selected = null;
  showStackMoves();
}

function takScore() {
  const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const side = (player, who, note) => {
    const [stones, caps] = game.reserves[player];
    const left = plural(stones, "stone") + (caps ? `, ${plural(caps, "capstone")}` : "");
    const about = [COLOURS[player], note].filter(Boolean).join(", ");
    return `${who} (${about}) ${plural(game.scores[player], "flat")}, ${left} left`;
  };
  const player = players.find((p) => p.spec === opponent);
  const note = player ? strength(player, "tak") : "";
  return `${side(seat, "You", "")} · ${side(1 - seat, opponent, note)}`;
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
  return Boolean(game) && !game.over && game.to_move === seat && !busy;
}

function update() {
  const tak = isTak();
  const [mine, theirs] = [game.scores[seat], game.scores[1 - seat]];
  $("#score").textContent = tak ? takScore() : `You ${mine} · ${opponentName()} ${theirs}`;
  const turn = yourTurn();
  if (tak) updateTak();
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
    const how = !tak ? "" : game.result === "road" ? " by a road" : game.result === "flat" ? " on flats" : "";
    const count = tak ? `, flats ${mine} to ${theirs}` : `, ${mine} to ${theirs}`;
    setPhase("over", `${result}${how}${count}. Press New game to play again.`);
    $("#score").dataset.result = game.winner === null ? "draw" : game.winner === seat ? "win" : "loss";
  } else if (turn) {
    delete $("#score").dataset.result;
    setPhase(
      "your-turn",
      tak
        ? "Your move: click an empty square to place the chosen piece, or one of your stacks to move it."
        : `Your move: click one of your houses (a..${label(game.state.options.houses - 1)}).`,
    );
  }
  showAnalysis();
}

// "c (capture 5, extra turn)": the move and what it did, in the server's words.
function moveWords(answer) {
  const said = answer.events ? answer.events.words : [];
  return (answer.move_name ?? label(answer.move)) + (said.length ? ` (${said.join(", ")})` : "");
}

function logMove(who, answer) {
  const item = document.createElement("li");
  item.textContent = `${who}: ${moveWords(answer)}`;
  if (answer.evaluation) item.title = JSON.stringify(answer.evaluation);
  $("#moves").append(item);
  item.scrollIntoView({ block: "nearest" });
}

async function computerMoves(mine) {
  while (mine === token && !game.over && game.to_move !== seat) {
    setPhase("thinking", `${opponent} is thinking…`);
    const answer = await api("/api/play", { state: game.state, player: opponent });
    if (mine !== token) return;
    setPhase("animating", `${opponent} plays ${moveWords(answer)}.`);
    logMove(opponent, answer);
    if (answer.frames) await animate(game.state.board, answer.frames, false);
    if (mine !== token) return;
    game = answer;
    render(game);
  }
}

function playHouse(house) {
  if (game.legal_moves.includes(house)) return playMove(house);
}

// Play the person's move: a house number, or a Tak move's PTN.
async function playMove(move) {
  if (!yourTurn()) return;
  const mine = token;
  selected = null;
  busy = true;
  showError(null);
  history.push({ game, logged: $("#moves").children.length });
  update();
  try {
    setPhase("animating", `You play ${typeof move === "number" ? label(move) : move}.`);
    const answer = await api("/api/move", { state: game.state, move });
    if (mine !== token) return;
    setPhase("animating", `You play ${moveWords(answer)}.`);
    logMove("You", answer);
    if (answer.frames) await animate(game.state.board, answer.frames, true);
    if (mine !== token) return;
    game = answer;
    render(game);
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
  selected = null;
  render(game);
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
  selected = null;
  placeKind = "F";
  $("#moves").innerHTML = "";
  delete $("#score").dataset.result;
  try {
    const variant = $("#variant").value;
    const options = chosenOptions(variant);
    game = await api("/api/new", { variant, options });
    if (mine !== token) return;
    buildBoard(game.state);
    render(game);
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
  const wanted = $("#analysis").checked && yourTurn() && !isTak();
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
  if (!yourTurn() || isTak()) return;
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
$("#variant").addEventListener("change", () => {
  document.body.dataset.chosen = $("#variant").value;
  fillOpponents();
});
$("#size").addEventListener("change", fillOpponents);
for (const button of document.querySelectorAll("#place-kind .kind")) {
  button.addEventListener("click", () => {
    placeKind = button.dataset.kind;
    selected = null;
    if (game && isTak()) update();
  });
}
$("#opponent").addEventListener("change", describeOpponent);
$("#analysis").addEventListener("change", () => game && showAnalysis());
$("#hint").addEventListener("click", hint);
$("#undo").addEventListener("click", undo);
loadPlayers()
  .then(() => {
    document.body.dataset.ready = "true";
  })
  .catch(showError);
