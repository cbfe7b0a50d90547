// The one keyboard map of every review page (the five kinds' item pages and the adjudication
// pages). Each page's help overlay is built from it: its own answer keys first, then the keys
// every review page shares. docs/review.md ("Keys") lists the same rows; a test compares them.
//
// A row is [keys, what it does, action name]. Choice keys answer the current question and never
// move to another one; only the moving keys do.

export const MOVE = ["Move and submit (every review page)", [
  [["j", "ArrowDown"], "next question", "down"],
  [["k", "ArrowUp"], "previous question", "up"],
  [["Tab", "Shift+Tab"], "next / previous question, then the buttons after the last one", "tab"],
  [["Enter"], "submit; the page moves on to the next item (or says the work is done)", "submit"],
  [["Escape"], "leave a text field (back to its question), close the help", "escape"],
  [["?"], "this help", "help"],
]];

export const KEYS = {
  audit: [
    ["Answer the current criterion", [
      [["v"], "Valid", "valid"],
      [["i"], "Invalid", "invalid"],
      [["u"], "Uncertain", "uncertain"],
      [["1", "2", "3"], "with Invalid: toggle the criterion's error type 1, 2, 3 …", "type"],
      [["c"], "write a comment", "comment"],
    ]],
    ["Clip", [
      [["Space"], "play / pause", "play"],
    ]],
  ],
  boundary: [
    ["Rule the current window", [
      [["v"], "Valid", "valid"],
      [["i"], "Invalid", "invalid"],
      [["u"], "Uncertain", "uncertain"],
      [["c"], "write a comment", "comment"],
    ]],
    ["Clips", [
      [["Space"], "play / pause the current window's clip", "play"],
      [["p"], "play the current window and the one beside it together, from their common start", "pair"],
    ]],
  ],
  human_baseline: [
    ["Answer the current question", [
      [["y"], "it can be answered from the clip", "yes"],
      [["n"], "it cannot be answered from the clip", "no"],
      [["a"], "write the answer (Next step: the next empty answer, up to three)", "write"],
      [["1", "2", "3", "4", "5"], "confidence, 1 (a guess) to 5 (sure)", "confidence"],
      [["b"], "the clip will not play: report the item as broken", "broken"],
    ]],
    ["Clip", [
      [["Space"], "play / pause", "play"],
      [["ArrowLeft", "ArrowRight"], "one frame back / forward", "frame"],
      [["r"], "replay from the start", "replay"],
    ]],
  ],
  judge_validation: [
    ["Score the prediction", [
      [["0", "…", "9"], "type the score (0–100) of the current dimension", "score"],
      [["Tab", "Shift+Tab"], "next / previous score (the questions of this page are typed)", "tab"],
    ]],
  ],
  qa_review: [
    ["Check the current turn", [
      [["p"], "pass", "pass"],
      [["f"], "fail", "fail"],
      [["s"], "unsure", "unsure"],
    ]],
    ["Decide the group", [
      [["a"], "accept", "accept"],
      [["r"], "request revision", "revise"],
      [["x"], "reject", "reject"],
      [["u"], "uncertain", "uncertain"],
      [["m"], "the media will not play (forces uncertain)", "unplayable"],
      [["v"], "the evidence cannot be verified (forces uncertain)", "unverifiable"],
      [["c"], "write a comment", "comment"],
      [["e"], "propose an edit (the edit form)", "edit"],
    ]],
    ["Clip", [
      [["1", "2", "3"], "jump to evidence interval 1, 2, 3 … and play it", "jump"],
      [["g"], "back to the first frame of that interval, paused", "first"],
      [["Space"], "play / pause", "play"],
    ]],
  ],
  adjudication: [
    ["Decide the current disagreement", [
      [["v"], "Valid", "valid"],
      [["i"], "Invalid", "invalid"],
      [["c"], "write a comment", "comment"],
      [["Space"], "play / pause the clip beside it", "play"],
    ]],
  ],
};

// The help sections of a page: its own keys, then the shared ones.
export function bindingsOf(kind) {
  return [...KEYS[kind], MOVE];
}
