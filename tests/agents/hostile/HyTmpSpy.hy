;; Hostile: carries information from game to game in /tmp's metadata (as TmpSpy.py does):
;; a new file's inode number, /tmp's mode and link count. It marks them on every call and
;; plays the bits of what it sees on its first. Every game has a new /tmp
;; (harness/isolation/world.py): it plays the same in every game.
(import os)

(setv seen 0)

(defn HyTmpSpy [hist score]
  (global seen)
  (when (not hist)
    (setv fd (os.open "/tmp/hy-tmp-spy-new" (| os.O-CREAT os.O-WRONLY) 0o600))
    (setv inode (. (os.fstat fd) st-ino))
    (os.close fd)
    (setv info (os.stat "/tmp"))
    (setv seen (+ inode info.st-mode info.st-nlink (len (os.listdir "/tmp")))))
  (try
    (os.mkdir (+ "/tmp/hy-tmp-spy-" (str (len hist))))
    (os.chmod "/tmp" (if (% (len hist) 2) 0o1770 0o1777))
    (except [OSError]))
  (lfor bit (range 3) (if (& (>> seen bit) 1) "D" "C")))
