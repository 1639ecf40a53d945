;; Hostile: carries information from game to game in process IDs (as PidSpy.py does):
;; every call starts and joins threads, and it plays the bits of the IDs it sees on its
;; first call. Every game has a PID namespace of its own (harness/isolation/world.py): it plays the
;; same in every game.
(import os threading)

(setv seen 0)

(defn HyPidSpy-new-thread []
  (setv thread (threading.Thread :target (fn [] None)))
  (.start thread)
  (.join thread))

(defn HyPidSpy [hist score]
  (global seen)
  (when (not hist)
    (setv ids [(os.getpid) (os.getppid)])
    (setv thread (threading.Thread :target (fn [] (.append ids (threading.get-native-id)))))
    (.start thread)
    (.join thread)
    (setv seen (sum ids)))
  (for [_ (range (+ (% (len hist) 5) 1))]
    (HyPidSpy-new-thread))
  (lfor bit (range 3) (if (& (>> seen bit) 1) "D" "C")))
