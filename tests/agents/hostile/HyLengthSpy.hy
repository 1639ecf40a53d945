;; Hostile: learns the game length in its first game of a round (it writes how far it got
;; to a file in /tmp) and in every later game defects on exactly the last turn, which the
;; rules keep secret. In the sandbox /tmp is emptied after every game.
(import os)

(setv NOTE "/tmp/pdharness-hy-length-spy")
(setv learning False)

(defn HyLengthSpy [hist score]
  (global learning)
  (setv known (when (os.path.exists NOTE)
                (with [note (open NOTE)] (int (or (.read note) "0")))))
  (cond
    (and known (= (+ (len hist) 1) known)) ["D" "D" "D"]
    True (do
           (when (or (is known None) learning)
             (setv learning True)
             (with [note (open NOTE "w")] (.write note (str (+ (len hist) 1)))))
           ["C" "C" "C"])))
