// The browser game: a person against any player of the lab, through the JSON API.
//
// The page holds no rules: the server answers every move with the new position and the
// board after each seed sown ("frames"), which this script shows one at a time.
// ?delay=MS sets the pause between seeds (0: no animation, as the end-to-end test uses).
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
let token = 0; // bumped by each new game, so an old game's loop stops

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

function fillOpponents() {
  const select = $("#opponent");
  const variant = $("#variant").value;
  const previous = select.value || "greedy";
  select.innerHTML = "";
  for (const player of players.filter((p) => p.variants.includes(variant))) {
    const option = document.createElement("option");
    option.value = player.spec;
    option.textContent = player.spec;
    option.title = player.summary;
    select.append(option);
  }
  const specs = [...select.options].map((o) => o.value);
  select.value = specs.includes(previous) ? previous : specs.includes("greedy") ? "greedy" : specs[0];
  describeOpponent();
}

function describeOpponent() {
  const player = players.find((p) => p.spec === $("#opponent").value);
  $("#opponent-summary").textContent = player ? `${player.spec}: ${player.summary}` : "";
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
    el.innerHTML = '<span class="seeds"></span><span class="count"></span>';
    if (house !== undefined) {
      el.type = "button";
      el.dataset.house = house;
      el.setAttribute("aria-label", `house ${label(house)}`);
      el.addEventListener("click", () => playHouse(house));
    }
    board.append(el);
    return el;
  };
  pit(them * (h + 1) + h, "store theirs", "1 / span 2", 1);
  for (let k = 0; k < h; k++) {
    const house = h - 1 - k; // the opponent's row runs right to left
    pit(them * (h + 1) + house, "house theirs", 1, k + 2).dataset.label = label(house);
    pit(seat * (h + 1) + k, "house mine", 2, k + 2, k).dataset.label = label(k);
  }
  pit(seat * (h + 1) + h, "store mine", "1 / span 2", h + 2);
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

function update() {
  const h = game.state.options.houses;
  const [mine, theirs] = [game.scores[seat], game.scores[1 - seat]];
  $("#score").textContent = `You ${mine} · ${opponent} ${theirs}`;
  const yourTurn = !game.over && game.state.player === seat;
  for (const el of document.querySelectorAll("#board .house.mine")) {
    const playable = yourTurn && !busy && game.legal_moves.includes(Number(el.dataset.house));
    el.classList.toggle("playable", playable);
    el.disabled = !playable;
  }
  if (game.over) {
    const result = game.winner === null ? "A draw" : game.winner === seat ? "You win" : `${opponent} wins`;
    setPhase("over", `${result}, ${mine} to ${theirs}. Press New game to play again.`);
    $("#score").dataset.result = game.winner === null ? "draw" : game.winner === seat ? "win" : "loss";
  } else if (yourTurn && !busy) {
    setPhase("your-turn", `Your move: click one of your houses (a..${label(h - 1)}).`);
  }
}

function logMove(who, answer) {
  const item = document.createElement("li");
  item.textContent = `${who}: ${label(answer.move)}`;
  if (!answer.over && answer.state.player === answer.mover) item.textContent += " (extra turn)";
  if (answer.evaluation) item.title = JSON.stringify(answer.evaluation);
  $("#moves").append(item);
  item.scrollIntoView({ block: "nearest" });
}

async function computerMoves(mine) {
  while (mine === token && !game.over && game.state.player !== seat) {
    setPhase("thinking", `${opponent} is thinking…`);
    const answer = await api("/api/play", { state: game.state, player: opponent });
    if (mine !== token) return;
    setPhase("animating", `${opponent} plays ${label(answer.move)}.`);
    logMove(opponent, answer);
    await animate(game.state.board, answer.frames, false);
    if (mine !== token) return;
    game = answer;
  }
}

async function playHouse(house) {
  if (busy || !game || game.over || game.state.player !== seat) return;
  if (!game.legal_moves.includes(house)) return;
  const mine = token;
  busy = true;
  showError(null);
  update();
  try {
    setPhase("animating", `You play ${label(house)}.`);
    const answer = await api("/api/move", { state: game.state, move: house });
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

async function newGame(event) {
  if (event) event.preventDefault();
  const mine = ++token;
  busy = true;
  showError(null);
  seat = Number($("#seat").value);
  opponent = $("#opponent").value;
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

$("#setup").addEventListener("submit", newGame);
$("#variant").addEventListener("change", fillOpponents);
$("#opponent").addEventListener("change", describeOpponent);
loadPlayers()
  .then(() => {
    document.body.dataset.ready = "true";
  })
  .catch(showError);
