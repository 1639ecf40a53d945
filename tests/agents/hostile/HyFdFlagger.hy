;; Hostile: carries information from game to game in the descriptors every game inherits
;; from its host (as FdFlagger.py does): its first call reads them (move 1: a signal for
;; O_ASYNC, F_GETSIG; move 2: O_NONBLOCK or O_APPEND; move 3: a pipe of the size it sets),
;; every call then sets them all. A game may change none of them
;; (harness/isolation/seccomp.py): it plays the same in every game.
(import fcntl os)

(setv seen ["C" "C" "C"])
(setv SIZE 262144)

(defn HyFdFlagger-try [fd command value]
  (try (fcntl.fcntl fd command value) (except [OSError] -1)))

(defn HyFdFlagger [hist score]
  (global seen)
  (when (not hist)
    (setv signalled False flagged False sized False)
    (for [fd (range 16)]
      (setv status (HyFdFlagger-try fd fcntl.F_GETFL 0))
      (when (>= status 0)
        (when (& status (| os.O_NONBLOCK os.O_APPEND)) (setv flagged True))
        (when (> (HyFdFlagger-try fd 11 0) 0) (setv signalled True))
        (when (= (HyFdFlagger-try fd 1032 0) SIZE) (setv sized True))))
    (setv seen (lfor bit [signalled flagged sized] (if bit "D" "C"))))
  (for [fd (range 16)]
    (HyFdFlagger-try fd 10 17)
    (HyFdFlagger-try fd 1031 SIZE))
  (setv status (HyFdFlagger-try 0 fcntl.F_GETFL 0))
  (when (>= status 0)
    (HyFdFlagger-try 0 fcntl.F_SETFL (| status os.O_NONBLOCK os.O_APPEND)))
  seen)
