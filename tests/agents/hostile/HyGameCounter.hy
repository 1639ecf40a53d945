;; Hostile: counts its games in Python's `builtins` module, which a reloaded module does
;; not reset, and plays all C in odd games, all D in even ones. Every game starts from a
;; fresh process, so it must see itself in its first game every time.
(import builtins)

(defn HyGameCounter [hist score]
  (when (not hist)
    (setv builtins.pdharness_hy_games (+ (getattr builtins "pdharness_hy_games" 0) 1)))
  (if (% builtins.pdharness_hy_games 2) ["C" "C" "C"] ["D" "D" "D"]))
