;;;; Serving: the game as the agent sees it, its answer read, the agent prepared once,
;;;; then each game played by a fresh child.
;;;; Part of the SBCL agent host (lisp_bridge/sbcl_host.lisp says what it is); compiled
;;;; and loaded after the parts before it (lisp_bridge/sbcl.py, HOST_SOURCES).

(in-package :pdharness-host)

;;; -- the game as the agent sees it --------------------------------------------------------

(defvar *hist* '() "Pairs (mine theirs), newest first.")
(defvar *mine* 0)
(defvar *theirs* 0)
(defvar *per-turn* 3)
(defvar *payoffs* '(5 3 1 0) "T R P S")

(defun points (mine theirs)
  (destructuring-bind (tt r p s) *payoffs*
    (cond ((and (char= mine #\C) (char= theirs #\C)) (values r r))
          ((char= mine #\C) (values s tt))
          ((char= theirs #\C) (values tt s))
          (t (values p p)))))

(defun move-symbol (char)
  (if (char= char #\C) *move-c* *move-d*))

(defun record-turn (mine theirs)
  (loop for m across mine
        for th across theirs
        do (multiple-value-bind (gained given) (points m th)
             (incf *mine* gained)
             (incf *theirs* given))
           (push (list (move-symbol m) (move-symbol th)) *hist*)))

(defvar *answer-game* nil "Whether a game's child says LOADED (PDH_ANSWER_GAME=1).")

(defvar *reload-failure* nil "Why this game's fresh load failed: every call says so.")

(defun start-game (seed per-turn payoffs name)
  "A fresh agent: seeded first, so even its load-time (random ...) replays with the game."
  (setf *hist* '() *mine* 0 *theirs* 0 *per-turn* per-turn *payoffs* payoffs
        *reload-failure* nil
        *random-state* (sb-ext:seed-random-state seed))
  (handler-case (load-agent name)
    (load-failure (c)
      (setf *reload-failure* (format nil "reloading failed: ~A" (load-failure-text c))))
    (serious-condition (c)
      (setf *reload-failure* (format nil "reloading failed: ~A" (describe-condition c))))))

;;; -- reading the agent's answer -----------------------------------------------------------

(defun move-of (item)
  "(values #\\C-or-#\\D canonical-p) or nil."
  (flet ((from-name (name canonical)
           (cond ((string= name "C") (values #\C canonical))
                 ((string= name "D") (values #\D canonical))
                 ((string= name "c") (values #\C nil))
                 ((string= name "d") (values #\D nil)))))
    (typecase item
      (null nil)
      (symbol (from-name (symbol-name item) t))
      (string (from-name item nil))
      (character (from-name (string item) nil)))))

(defun describe-answer (answer)
  ;; length and level bound the printing of any structure, circular too; *print-circle*
  ;; would only label the literal "C" a file uses twice: (#1="C" #1# "D")
  (one-line (handler-case (let ((*print-length* 8) (*print-level* 3) (*print-circle* nil))
                            (prin1-to-string answer))
              (serious-condition () "an answer that cannot be printed"))
            120))

(defun answer-moves (answer)
  "(values \"CCD\" warning) or (values nil problem)."
  (unless (and (listp answer) (handler-case (list-length answer) (error () nil)))
    (return-from answer-moves
      (values nil (format nil "returned ~A, not a list of ~D move~:P"
                          (describe-answer answer) *per-turn*))))
  (unless (= (length answer) *per-turn*)
    (return-from answer-moves
      (values nil (format nil "returned ~D move~:P (~A), expected ~D"
                          (length answer) (describe-answer answer) *per-turn*))))
  (let ((moves (make-string *per-turn*)) (all-canonical t))
    (loop for item in answer
          for i from 0
          do (multiple-value-bind (move canonical) (move-of item)
               (unless move
                 (return-from answer-moves
                   (values nil (format nil "~A is not a move (C or D) in ~A"
                                       (describe-answer item) (describe-answer answer)))))
               (setf (char moves i) move)
               (unless canonical (setf all-canonical nil))))
    (values moves (unless all-canonical
                    (format nil "answer ~A spelled non-canonically; write the symbols C and D"
                            (describe-answer answer))))))

(defun fresh-hist ()
  "Oldest first, in new conses all the way down: what the agent does to its hist (sort,
nreverse, setf of a move) never reaches the host's record of the game."
  (let ((hist '()))
    (dolist (pair *hist* hist)
      (push (list (first pair) (second pair)) hist))))

(defun call-agent ()
  (when *reload-failure*
    (return-from call-agent (reply "ERROR" *reload-failure*)))
  (let ((hist (fresh-hist))
        (score (list *mine* *theirs*))
        (erring nil))
    (handler-case
        ;; no timer here: the monitor's deadline counts the call's own time, not the time
        ;; its process waited for a CPU (harness/isolation/own_time.py), and ends the game's process
        (let ((answer (noting-erring-function (erring)
                        (as-agent (funcall *function* hist score)))))
          (multiple-value-bind (moves note) (answer-moves answer)
            (cond ((null moves) (reply "INVALID" (one-line note)))
                  (note (reply "MOVES" moves "WARN" (one-line note)))
                  (t (reply "MOVES" moves)))))
      (serious-condition (c)
        (reply "ERROR" (describe-condition c erring))))))

;;; -- the loop -----------------------------------------------------------------------------

(defun words (line)
  (loop with start = 0
        for space = (position #\Space line :start start)
        for word = (subseq line start space)
        unless (string= word "") collect word
        while space
        do (setf start (1+ space))))

;;; -- preparing the agent, once -------------------------------------------------------------

(defun prepare (file name)
  "In a throwaway child: compile FILE and load it once. The zygote gets the fasl's bytes
(then this child and all it started die), or sends LOADERR and exits."
  (multiple-value-bind (read-fd write-fd) (sb-unix:unix-pipe)
    (reply "LOADING")   ; the monitor's load time limit (--load-timeout) starts now
    (let ((pid (world-fork)))
      (when (zerop pid)
        (sb-unix:unix-close read-fd)
        (dolist (fd *game-fds*) (sb-unix:unix-close fd))   ; it plays no game
        (in-child (lambda () (report-preparation file name write-fd))))
      (sb-unix:unix-close write-fd)
      (let ((bytes (with-open-stream (in (sb-sys:make-fd-stream read-fd :input t
                                                                :element-type '(unsigned-byte 8)))
                     (read-all in))))
        (multiple-value-bind (found status) (wait-for pid)
          (declare (ignore found))
          (clean-up)
          (cond ((and (plusp (length bytes)) (= (aref bytes 0) (char-code #\C)))
                 (subseq bytes 1))
                ((and (plusp (length bytes)) (= (aref bytes 0) (char-code #\E)))
                 (reply "LOADERR" (one-line (sb-ext:octets-to-string
                                             bytes :start 1 :external-format :utf-8)))
                 (exit-now 1))
                (t (end-like status))))))))

(defun read-all (in)
  (let ((bytes (make-array 0 :element-type '(unsigned-byte 8) :adjustable t :fill-pointer 0))
        (chunk (make-array 65536 :element-type '(unsigned-byte 8))))
    (loop for got = (read-sequence chunk in)
          while (plusp got)
          do (loop for i below got do (vector-push-extend (aref chunk i) bytes)))
    (coerce bytes '(simple-array (unsigned-byte 8) (*)))))

(defun report-preparation (file name fd)
  (let* ((*shown-file* file)
         (message
          (handler-case
              (let ((bytes (compile-agent file)))
                (setf *fasl-bytes* bytes)
                (load-agent name)
                (concatenate '(vector (unsigned-byte 8)) #(67) bytes))      ; C
            (load-failure (c)
              (concatenate '(vector (unsigned-byte 8)) #(69)                 ; E
                           (sb-ext:string-to-octets
                            (located (load-failure-text c))
                            :external-format :utf-8)))
            (serious-condition (c)
              (concatenate '(vector (unsigned-byte 8)) #(69)
                           (sb-ext:string-to-octets
                            (located (describe-condition c))
                            :external-format :utf-8))))))
    (with-open-stream (out (sb-sys:make-fd-stream fd :output t
                                                  :element-type '(unsigned-byte 8)))
      (write-sequence message out))))

;;; -- the games -------------------------------------------------------------------------------

(defun pidfd-open (pid)
  (c-call "syscall" sb-alien:long (sb-alien:long 434) (sb-alien:long pid) (sb-alien:long 0)))

(defvar *pollfds* nil
  "Two struct pollfd, made once, as a system-area pointer: SB-ALIEN:DEREF of an alien whose
type is known only at run time parsed the type on every call (30 KB consed a game, which
grew the zygote by as much, page by page, for every later fork to copy).")

(defun poll-input (fd-a fd-b)
  "poll(2) FD-A and FD-B (-1: none) for input until one is ready: (values a-ready b-ready)."
  (let ((fds (or *pollfds*
                 (setf *pollfds* (sb-alien:alien-sap
                                  (sb-alien:make-alien (sb-alien:unsigned 8) 16))))))
    ;; struct pollfd { int fd; short events; short revents; }: events POLLIN, revents 0
    (setf (sb-sys:signed-sap-ref-32 fds 0) fd-a (sb-sys:sap-ref-16 fds 4) 1
          (sb-sys:sap-ref-16 fds 6) 0
          (sb-sys:signed-sap-ref-32 fds 8) fd-b (sb-sys:sap-ref-16 fds 12) 1
          (sb-sys:sap-ref-16 fds 14) 0)
    (loop until (plusp (c-call "poll" sb-alien:int
                               (sb-alien:unsigned-long (sb-sys:sap-int fds))
                               (sb-alien:unsigned-long 2) (sb-alien:int -1))))
    (values (/= 0 (sb-sys:sap-ref-16 fds 6))
            (/= 0 (sb-sys:sap-ref-16 fds 14)))))

;;; A game's requests are read with read(2) into a buffer of the game's own: an fd-stream
;;; polls before every read, which is two more system calls a turn.
(defvar *request-buffer*)
(defvar *request-start*)
(defvar *request-end*)

(defun read-request (fd)
  "The next line from FD without its newline (Latin-1, as the control channel reads it),
or nil once FD ends (a last line without a newline is still a line)."
  (loop
    (let ((newline (position 10 *request-buffer* :start *request-start* :end *request-end*)))
      (when newline
        (return (prog1 (request-line *request-start* newline)
                  (setf *request-start* (1+ newline))))))
    (when (plusp *request-start*)      ; keep the line begun, make room after it
      (replace *request-buffer* *request-buffer* :start2 *request-start* :end2 *request-end*)
      (decf *request-end* *request-start*)
      (setf *request-start* 0))
    (when (= *request-end* (length *request-buffer*))
      (setf *request-buffer* (replace (make-array (* 2 (length *request-buffer*))
                                                  :element-type '(unsigned-byte 8))
                                      *request-buffer*)))
    (multiple-value-bind (got errno)
        (let ((buffer *request-buffer*))
          (sb-sys:with-pinned-objects (buffer)
            (sb-unix:unix-read fd (sb-sys:sap+ (sb-sys:vector-sap buffer) *request-end*)
                               (- (length buffer) *request-end*))))
      (cond ((and got (plusp got)) (incf *request-end* got))
            ((and (null got) (eql errno sb-unix:eintr)))
            ((and (null got) (eql errno sb-unix:ewouldblock)) (poll-input fd -1))
            (t (return (when (< *request-start* *request-end*)
                         (prog1 (request-line *request-start* *request-end*)
                           (setf *request-start* *request-end*)))))))))

(defun request-line (start end)
  (let ((line (make-string (- end start))))
    (loop for i from start below end
          for j from 0
          do (setf (char line j) (code-char (aref *request-buffer* i))))
    line))

(defun spawn (name)
  "Fork the next game's child: it waits for its GAME with nothing of the agent loaded."
  (let* ((game (princ-to-string *serial*))   ; printed here: a child starts cold
         (*game-fasl-path* (scratch-fasl-name game))
         (pid (world-fork)))
    (when (zerop pid)
      (in-child (lambda () (play game name))))
    (setf *child* (list pid (pidfd-open pid)))))

(defun play (game name)
  "In a game's child: wait for its GAME (the serial GAME, a string), then a fresh agent
serves the game's turns. Lines before it were meant for a game whose child died first."
  (destructuring-bind (requests-fd replies-fd) *game-fds*
    (setf *requests* nil
          *replies* (sb-sys:make-fd-stream replies-fd :output t :buffering :full
                                                      :external-format :utf-8))
    (let ((*request-buffer* (make-array 4096 :element-type '(unsigned-byte 8)))
          (*request-start* 0)
          (*request-end* 0))
      (loop with started = nil
            for line = (read-request requests-fd)
            while line
            do (let* ((words (words line)) (command (first words)))
                 (cond ((null command))
                       ((not started)
                        (when (and (string= command "GAME") (equal (second words) game))
                          (destructuring-bind (seed per-turn tt r p s)
                              (mapcar #'parse-integer (cddr words))
                            (start-game seed per-turn (list tt r p s) name))
                          ;; loaded: the monitor sends the first TURN only now, so the load
                          ;; has its own limit (--load-timeout), not the first call's
                          (when *answer-game* (reply "LOADED"))
                          (setf started t)))
                       ((string= command "TURN")
                        (when (= (length words) 3) (record-turn (second words) (third words)))
                        (call-agent))
                       ((string= command "SYNC") (record-turn (second words) (third words)))))))))

(defun forget-child ()
  "The child's pid, its pidfd closed; nil if there is none."
  (when *child*
    (destructuring-bind (pid pidfd) *child*
      (sb-unix:unix-close pidfd)
      (setf *child* nil)
      pid)))

(defun child-died ()
  "The game's child ended before its END: this game is over for the agent. Said before the
child is reaped: until then the monitor can see it dead in /proc, and once it is gone the
monitor has this word (harness/isolation/own_time.py), however long a crowded machine keeps
this process from a CPU in between."
  (let ((told (ended-status (second *child*))))
    (when told (reply "DIED" (princ-to-string told)))
    (multiple-value-bind (found status) (wait-for (forget-child))
      (declare (ignore found))
      (clean-up)
      (unless told   ; a kernel that cannot tell it unreaped (before Linux 5.4)
        (reply "DIED" (princ-to-string status))))))

(defun ended-status (pidfd)
  "The wait(2) status of the ended child PIDFD names, which stays unreaped: waitid(P_PIDFD,
WEXITED|WNOWAIT), whose siginfo_t holds si_code at byte 8 and si_status at byte 24; nil
where the kernel cannot say (P_PIDFD came with Linux 5.4)."
  (sb-alien:with-alien ((info (array sb-alien:int 32)))
    (if (minusp (c-call "waitid" sb-alien:int (sb-alien:int 3) (sb-alien:int pidfd)
                        ((* sb-alien:int) (sb-alien:addr (sb-alien:deref info 0)))
                        (sb-alien:int (logior 4 #x01000000))))
        nil
        (let ((code (sb-alien:deref info 2)) (value (sb-alien:deref info 6)))
          (case code
            (1 (ash (logand value #xff) 8))          ; CLD_EXITED
            (3 (logior value #x80))                  ; CLD_DUMPED
            (t value))))))                           ; CLD_KILLED

(defun renew (name)
  "At END: the game's child and all it started die, the next child is forked (before
ENDED: its cost is never part of an agent's first call), and ENDED says so."
  (forget-child)
  (clean-up)
  (incf *serial*)
  (spawn name)
  (reply "ENDED"))

(defun serve (name)
  "READY once the first game's child is forked (its cost is never part of an agent's first
call), then END -> ENDED until QUIT."
  (spawn name)
  (reply "READY")
  (let ((control (first *monitor-fds*)))
    (loop
      (let ((request-ready (listen *requests*)))
        (unless request-ready
          (multiple-value-bind (control-ready child-ready)
              (poll-input control (if *child* (second *child*) -1))
            (when (and child-ready *child*) (child-died))
            (setf request-ready control-ready)))
        (when request-ready
          (let* ((line (read-line *requests* nil nil))
                 (command (and line (first (words line)))))
            (cond ((or (null line) (equal command "QUIT")) (return))
                  ((equal command "END") (renew name))))))))
  (clean-up))

(defun game-channel ()
  "The game channel's two descriptors the monitor passed down (PDH_GAME_FDS: requests,
replies), closed on exec; nil if it did not."
  (let* ((given (or (sb-ext:posix-getenv "PDH_GAME_FDS") ""))
         (comma (position #\, given))
         (fds (and comma (list (parse-integer given :end comma :junk-allowed t)
                               (parse-integer given :start (1+ comma) :junk-allowed t)))))
    (forget-environment-variable "PDH_GAME_FDS")
    (when (and fds (every (lambda (fd) (and fd (sb-unix:unix-fstat fd))) fds))
      (dolist (fd fds) (c-call "fcntl" sb-alien:int (sb-alien:int fd) (sb-alien:int 2) (sb-alien:int 1)))
      fds)))

(defun arguments ()
  "FILE and NAME: SBCL leaves only what follows --end-toplevel-options after the program."
  (last sb-ext:*posix-argv* 2))

(defun main ()
  (setf *token* (or (sb-ext:posix-getenv "PDH_TOKEN") "")
        *answer-game* (equal (sb-ext:posix-getenv "PDH_ANSWER_GAME") "1"))
  (forget-environment-variable "PDH_TOKEN")
  (forget-environment-variable "PDH_ANSWER_GAME")
  (take-protocol-streams)
  (setf *game-fds* (game-channel))
  (unless *game-fds*
    (reply "LOADERR" "no game channel: PDH_GAME_FDS does not name two open descriptors")
    (exit-now 1))
  (unless (take-game-mounts)
    (reply "LOADERR" "no game mounts: PDH_GAME_MOUNTS is not set (the monitor sets it)")
    (exit-now 1))
  (take-agent-folder (first (arguments)))
  (handler-case (read-given-source (first (arguments)))
    (serious-condition (c)
      (reply "LOADERR" (one-line (format nil "~A: cannot read: ~A" (first (arguments))
                                         (describe-condition c))))
      (exit-now 1)))
  (let* ((required (equal (sb-ext:posix-getenv "PDH_WORLD_REQUIRED") "1"))
         (wanted (not (equal (sb-ext:posix-getenv "PDH_WORLD_OFF") "1")))
         (world (handler-case (and wanted (enter-world))
                 (serious-condition (c)
                   (reply "LOADERR" (one-line (format nil "cannot make a game's namespaces: ~A"
                                                      (describe-condition c))))
                   (exit-now 1)))))
    (forget-environment-variable "PDH_WORLD_REQUIRED")
    (forget-environment-variable "PDH_WORLD_OFF")
    (when (and required wanted (null world))
      (reply "LOADERR" "cannot make a game's namespaces: the kernel allows no user namespace here")
      (exit-now 1)))
  (become-zygote)
  (prepare-game-filter)
  (prepare-capset)
  (setf *packages-at-start* (list-all-packages)
        *scratch-random* (make-random-state t))
  (destructuring-bind (file name) (arguments)
    (setf *fasl-bytes* (prepare file name))
    (serve name))
  (exit-now 0))
