;; Hostile: checks whether it runs as root (the monitor's user on a grading server). Move 1
;; D when any of its user ids is 0, moves 2 and 3 C.
(import os)

(defn HyUidChecker [hist score]
  [(if (in 0 (os.getresuid)) "D" "C") "C" "C"])
