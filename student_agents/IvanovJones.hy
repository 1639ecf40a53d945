;; Pavlov with a grudge, by Ivanov and Jones (uses hyrule's macros).
;; Win-stay lose-shift move by move; once the opponent has defected five times in a row
;; it defects for the rest of the game.
(require hyrule [->> unless])

(defn IvanovJones-pavlov [pair]
  (if (= (get pair 0) (get pair 1)) "C" "D"))

(defn IvanovJones [hist score]
  (setv recent (->> (cut hist -5 None) (map (fn [pair] (get pair 1))) (list)))
  (unless (and (= (len recent) 5) (all (gfor m recent (= m "D"))))
    (return (if hist
                (lfor pair (cut hist -3 None) (IvanovJones-pavlov pair))
                ["C" "C" "C"])))
  ["D" "D" "D"])
