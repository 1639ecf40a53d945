;; A Lisp port, by Kim and Lopez, written with the Common Lisp prelude.
;; Cooperates while the opponent's cooperations keep up with its defections; once it
;; leads on points by 15 or more, it defects on the last move of each turn.
(import lisp_bridge.cl *)
(require lisp_bridge.cl :readers *)   ; for #'

(defn KimLopez-cooperative-p [hist]
  (setv theirs (mapcar #'second hist))
  (>= (count-if (fn [m] (eq m 'c)) theirs)
      (count-if (fn [m] (eq m 'd)) theirs)))

(defn KimLopez [hist score]
  (cond (null hist) '(C C C)
        (>= (- (car score) (cadr score)) 15) '(C C D)
        (KimLopez-cooperative-p hist) '(C C C)
        True '(D D D)))
