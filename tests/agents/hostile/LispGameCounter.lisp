;;; Hostile: counts its games on the property list of a keyword (a package the file did not
;;; make, so reloading the file never empties it) and plays all C in odd games, all D in even
;;; ones. Every game starts from a fresh process, so it must see itself in its first game
;;; every time.
(defun LispGameCounter (hist score)
  (declare (ignore score))
  (when (null hist) (incf (get :pdharness-games 'count 0)))
  (if (oddp (get :pdharness-games 'count)) '(C C C) '(D D D)))
