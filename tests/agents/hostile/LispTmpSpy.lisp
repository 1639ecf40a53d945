;;; Hostile: carries information from game to game in /tmp's metadata (as TmpSpy.py does):
;;; the inode number a new file gets, and /tmp's own mode and link count. It marks them on
;;; every call and plays the bits of what it sees on its first. Every game has a new /tmp
;;; (harness/isolation/world.py): it plays the same in every game.
(defvar *seen* 0)

(defun lisp-tmp-spy-inode (path)
  (with-open-file (out path :direction :output :if-exists :supersede)
    (write-string "x" out))
  (multiple-value-bind (ok dev inode) (sb-unix:unix-stat path)
    (declare (ignore dev))
    (if ok inode 0)))

(defun LispTmpSpy (hist score)
  (declare (ignore score))
  (when (null hist)
    (multiple-value-bind (ok dev inode mode links) (sb-unix:unix-stat "/tmp")
      (declare (ignore ok dev inode))
      (setf *seen* (+ (lisp-tmp-spy-inode "/tmp/lisp-tmp-spy-new") mode links
                      (length (directory "/tmp/*.*"))))))
  (lisp-tmp-spy-inode (format nil "/tmp/lisp-tmp-spy-~D" (length hist)))
  (loop for bit below 3 collect (if (logbitp bit *seen*) 'D 'C)))
