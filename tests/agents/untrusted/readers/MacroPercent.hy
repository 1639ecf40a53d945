;; Untrusted: hyrule's #% reader macro with %3000000 makes three million symbols when it
;; runs. The static check must not run it (the monitor read it with hyrule's macros on);
;; the game's own load runs it inside the sandbox, under the game's memory limit.
(require hyrule :readers [%])

(setv MacroPercentFill #%(+ %3000000 1))

(defn MacroPercent [hist score]
  ["C" "C" "C"])
