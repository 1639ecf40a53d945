;;; Contract agent: a pure function of the game as played (tests/agents/contract/README.md).
(defun Plain (hist score)
  (declare (ignore score))
  (if hist
      (mapcar #'second (last hist 3))
      (list 'C 'C 'D)))
