;; Copies hist (deep and shallow) and pickles it before comparing: moves must survive.
(import copy pickle)

(defn Copier [hist score]
  (setv deep (copy.deepcopy hist)
        round-trip (pickle.loads (pickle.dumps hist)))
  (for [pairs [deep round-trip (copy.copy hist)]
        [mine theirs] pairs]
    (assert (or (= theirs 'C) (= theirs 'D)))
    (assert (in theirs ["C" "D"])))
  (if (and hist (= (get (get deep -1) 1) 'D)) ['D 'D 'D] ['C 'C 'C]))
