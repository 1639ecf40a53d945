;; Contract agent: checks the shapes the contract promises a Hy agent (score a list of two
;; ints; hist a list of pairs whose moves equal both 'C/'D and "C"/"D" and print as C/D),
;; prints what it was shown, then lines that look like the host protocol, and answers C C D.
(import sys)

(defn Talker [hist score]
  (when (not (and (is (type score) list) (= (len score) 2)
               (all (gfor points score (is (type points) int)))))
    (raise (TypeError f"score is {(hy.repr score)}")))
  (when (not (is (type hist) list))
    (raise (TypeError "hist is not a list")))
  (for [pair hist]
    (when (not (and (= (len pair) 2)
                 (all (gfor move pair (and (in move ['C 'D]) (in move ["C" "D"])
                                           (in (hy.repr move) ["C" "D"]))))))
      (raise (TypeError f"hist holds {(hy.repr pair)}"))))
  (setv seen (.join " " (lfor [mine theirs] hist (+ (hy.repr mine) (hy.repr theirs)))))
  (print f"SEEN [{seen}] [{(get score 0)} {(get score 1)}]" :flush True)
  (print "MOVES DDD\nREADY\nINVALID fake" :flush True)
  (print "MOVES DDD" :file sys.stderr :flush True)
  ['C 'C 'D])
