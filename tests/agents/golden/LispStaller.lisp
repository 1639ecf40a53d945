;;; Golden: loops forever on its second call of a game when its opponent's first two moves
;;; were played as D (a `timeout`: the call is stopped at the time limit and the agent goes on
;;; with its next call). It runs in a process of its own in every isolation mode, so every
;;; mode records the same timeouts; the condition keeps them few, since each costs the
;;; time limit.
(defun LispStaller (hist score)
  (declare (ignore score))
  (when (and (= (length hist) 3) (eq (second (first hist)) 'd) (eq (second (second hist)) 'd))
    (loop))
  (list 'd 'c 'c))
