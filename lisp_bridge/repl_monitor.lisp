;;;; (monitor flip-params game-length agents &key ...) in your own SBCL REPL.
;;;;
;;;;   (load "/path/printed/by/pdharness-lisp-init")
;;;;   (defun KhosmoodLevinson (hist score) ...)
;;;;   (monitor '(.25 .1) '(10 50) '(#'random #'titfortat #'KhosmoodLevinson))
;;;;   => ((KHOSMOODLEVINSON 300) (TITFORTAT 225) (RANDOM 150))
;;;;
;;;; The REPL starts the real monitor (`pdharness repl-serve`, found on PATH) and serves it
;;;; the functions this image defines, over pipes, with the host line protocol every
;;;; tournament uses (docs/DESIGN.md): the monitor checks every reply as it checks a host
;;;; process's. A name this image does not define as a function plays pdharness's built-in
;;;; of that name (#'titfortat, #'random: CL's RANDOM is not an agent). Each call is looked
;;;; up when it is made, so a function redefined between two calls plays its new definition.
;;;;
;;;; What differs from a graded run: your functions run here, in your image, with no
;;;; sandbox, and what they change (globals, files) stays changed from game to game. Check
;;;; the file you submit with `pdharness validate` and a `pdharness tournament`.
;;;;
;;;; The answers are read and the history kept by the SBCL host's own functions
;;;; (lisp_bridge/sbcl_host*.lisp, loaded beside this file): the same checks, the same
;;;; messages as in a tournament.

(defpackage :pdharness-repl
  (:use :common-lisp)
  (:export #:monitor #:monitor-error))

(in-package :pdharness-repl)

(defparameter *here* (or *load-truename* *compile-file-truename*)
  "Where this file is: the SBCL host's parts are beside it.")

(let ((*compile-verbose* nil) (*compile-print* nil) (*load-verbose* nil))
  (handler-bind ((warning #'muffle-warning))
    ;; in the order lisp_bridge/sbcl.py compiles them (SOURCES)
    (dolist (part '("sbcl_host.lisp" "sbcl_host_loading.lisp" "sbcl_host_world.lisp"
                    "sbcl_host_serving.lisp"))
      (load (merge-pathnames part *here*)))))

(define-condition monitor-error (simple-error) ()
  (:documentation "A bad argument to MONITOR, or a monitor that could not run: one line."))

(defun fail (control &rest arguments)
  (error 'monitor-error :format-control (concatenate 'string "monitor: " control)
                        :format-arguments arguments))

;;; -- the agents ---------------------------------------------------------------------------

(defun designated (item)
  "The symbol or string an element of AGENTS names: #'name, 'name, \"name\", or a named
function object."
  (cond ((and (consp item) (eq (first item) 'function) (consp (rest item))
              (symbolp (second item)) (null (cddr item)))
         (second item))
        ((and item (symbolp item)) item)
        ((stringp item) item)
        ((and (functionp item) (symbolp (nth-value 2 (function-lambda-expression item)))
              (nth-value 2 (function-lambda-expression item))))
        (t (fail "~S is not an agent: write #'name, 'name or \"name\"" item))))

(defun served-p (symbol)
  "A function this image defines, not one of Common Lisp's, SBCL's or ours."
  (and (symbolp symbol) (fboundp symbol)
       (not (macro-function symbol)) (not (special-operator-p symbol))
       (let ((package (symbol-package symbol)))
         (and package
              (not (member package (mapcar #'find-package
                                           '(:common-lisp :keyword :pdharness-repl
                                             :pdharness-host))))
              (not (eql 0 (search "SB-" (package-name package))))))))

(defstruct channel
  symbol name stream (open t)
  (hist '()) (mine 0) (theirs 0) (per-turn 3) (payoffs '(5 3 1 0)) random-state)

(defun plain-name-p (name)
  (and (plusp (length name))
       (every (lambda (c) (and (graphic-char-p c) (char/= c #\Space))) name)))

(defun agents-of (agents)
  "(values served builtins names): channels for this image's functions, the other names as
pdharness spells them, and an alist from those names to what the result calls them."
  (unless (and (listp agents) agents (handler-case (list-length agents) (error () nil)))
    (fail "agents must be a list, e.g. '(#'random #'titfortat #'yourname), not ~S" agents))
  (let ((served '()) (builtins '()) (names '()))
    (dolist (item agents)
      (let* ((what (designated item))
             (name (cond ((served-p what) (symbol-name what))
                         ((symbolp what) (string-downcase (symbol-name what)))
                         (t what))))
        (unless (plain-name-p name)
          (fail "~S: an agent's name has no spaces or control characters" item))
        (when (assoc name names :test #'string=)
          (fail "~A is named twice" name))
        (push (cons name (if (symbolp what) what (intern (string-upcase name)))) names)
        (if (served-p what)
            (push (make-channel :symbol what :name name) served)
            (push name builtins))))
    (values (nreverse served) (nreverse builtins) names)))

;;; -- the options, as the command line spells them -----------------------------------------

(defun decimal (x)
  (let ((*read-default-float-format* 'double-float))
    (format nil "~F" (coerce x 'double-float))))

(defun pair-of (what value check example)
  (unless (and (listp value) (= (length value) 2) (every check value))
    (fail "~A must be a list of two numbers, e.g. ~A, not ~S" what example value))
  value)

(defun command-arguments (flip length seed moves-per-turn max-rounds timeout decay
                          isolation)
  (destructuring-bind (f1 i) (pair-of "flip-params" flip #'realp "'(.25 .1)")
    (destructuring-bind (lo hi) (pair-of "game-length" length #'integerp "'(10 50)")
      (flet ((whole (name value low)
               (unless (and (integerp value) (>= value low))
                 (fail "~A must be an integer of at least ~D, not ~S" name low value))
               (princ-to-string value)))
        (append
         (list "--flip" (decimal f1) (decimal i) "--length" (whole "game-length" lo 1)
               (whole "game-length" hi 1)
               "--moves-per-turn" (whole ":moves-per-turn" moves-per-turn 1))
         (when seed (list "--seed" (whole ":seed" seed 0)))
         (when max-rounds (list "--max-rounds" (whole ":max-rounds" max-rounds 1)))
         (progn (unless (and (realp timeout) (plusp timeout))
                  (fail ":timeout must be a positive number of seconds, not ~S" timeout))
                (list "--timeout" (decimal timeout)))
         (let ((mode (string-downcase (string decay))))
           (unless (member mode '("percent-per-turn" "fraction-per-move") :test #'string=)
             (fail ":decay must be :percent-per-turn or :fraction-per-move, not ~S" decay))
           (list "--decay" mode))
         (let ((mode (string-downcase (string isolation))))
           (unless (member mode '("sandbox" "process" "none") :test #'string=)
             (fail ":isolation (for the built-ins) must be :sandbox, :process or :none, ~
                    not ~S" isolation))
           (list "--isolation" mode)))))))

;;; -- the monitor process ------------------------------------------------------------------

(defun find-program (name)
  (if (find #\/ name)
      (let ((found (probe-file name))) (and found (pathname-name found) name))
      (let ((path (or (sb-ext:posix-getenv "PATH") "")))
        (loop for start = 0 then (1+ end)
              for end = (position #\: path :start start)
              for folder = (subseq path start end)
              for candidate = (concatenate 'string (if (string= folder "") "." folder) "/"
                                           name)
              when (let ((found (probe-file candidate)))   ; a folder's truename has no name
                     (and found (pathname-name found)))
                do (return candidate)
              while end))))

(defun scratch-folder ()
  (let ((folder (format nil "/tmp/pdharness-repl-~D-~36R/" (sb-unix:unix-getpid)
                        (random (expt 36 10) (make-random-state t)))))
    (unless (sb-unix:unix-mkdir folder #o700)
      (fail "cannot make the folder ~A" folder))
    folder))

(defun new-token ()
  (let ((state (make-random-state t)))
    (format nil "~{~(~2,'0x~)~}" (loop repeat 8 collect (random 256 state)))))

(defun file-text (path)
  (with-open-file (in path :if-does-not-exist nil :external-format '(:utf-8 :replace #\?))
    (if in
        (let ((text (make-string (file-length in))))
          (subseq text 0 (read-sequence text in)))
        "")))

(defun last-line (text)
  (let ((lines (loop for start = 0 then (1+ end)
                     for end = (position #\Newline text :start start)
                     for line = (string-trim " " (subseq text start end))
                     when (plusp (length line)) collect line
                     while end)))
    (car (last lines))))

;;; -- serving the functions ----------------------------------------------------------------

(defvar *token* "")
(defvar *limit* 1.0 "Seconds a call may take.")

(defun reply (channel &rest parts)
  "One reply line on the agent's pipe; a pipe the monitor closed ends the serving of it."
  (when (channel-open channel)
    (handler-case
        (let ((out (channel-stream channel)))
          (format out "~A~{ ~A~}~%" *token* parts)
          (finish-output out))
      (serious-condition ()
        (setf (channel-open channel) nil)))))

(defmacro as-host-sees (channel &body body)
  "BODY with the SBCL host's game state (its specials) being CHANNEL's."
  (let ((c (gensym)))
    `(let* ((,c ,channel)
            (pdharness-host::*hist* (channel-hist ,c))
            (pdharness-host::*mine* (channel-mine ,c))
            (pdharness-host::*theirs* (channel-theirs ,c))
            (pdharness-host::*per-turn* (channel-per-turn ,c))
            (pdharness-host::*payoffs* (channel-payoffs ,c))
            (pdharness-host::*move-c* (intern "C" (symbol-package (channel-symbol ,c))))
            (pdharness-host::*move-d* (intern "D" (symbol-package (channel-symbol ,c)))))
       (multiple-value-prog1 (progn ,@body)
         (setf (channel-hist ,c) pdharness-host::*hist*
               (channel-mine ,c) pdharness-host::*mine*
               (channel-theirs ,c) pdharness-host::*theirs*)))))

(defun call-agent (channel)
  "The function as it is defined now, called with the game so far and the game's own
random state; stopped after *limit* seconds; anything it signals is its fault."
  (as-host-sees channel
    (let ((hist (pdharness-host::fresh-hist))
          (score (list pdharness-host::*mine* pdharness-host::*theirs*))
          (erring nil))
      (handler-case
          (let ((answer (let ((*random-state* (channel-random-state channel))
                              ;; as in a host: nothing to read (the REPL's own input,
                              ;; the rest of a script, is not the agent's)
                              (*standard-input* (make-string-input-stream "")))
                          (sb-ext:with-timeout *limit*
                            (pdharness-host::noting-erring-function (erring)
                              (funcall (fdefinition (channel-symbol channel))
                                       hist score))))))
            (multiple-value-bind (moves note) (pdharness-host::answer-moves answer)
              (cond ((null moves) (reply channel "INVALID" (pdharness-host::one-line note)))
                    (note (reply channel "MOVES" moves "WARN"
                                 (pdharness-host::one-line note)))
                    (t (reply channel "MOVES" moves)))))
        (sb-sys:interactive-interrupt (c) (error c))   ; Ctrl-C stops the monitor
        (sb-ext:timeout ()
          (reply channel "TIMEOUT"
                 (format nil "no answer within ~,2F s (stopped inside Lisp)" *limit*)))
        (serious-condition (c)
          (reply channel "ERROR" (pdharness-host::describe-condition c erring)))))))

(defun serve-request (line channels)
  (let* ((words (pdharness-host::words line))
         (number (and words (parse-integer (first words) :junk-allowed t)))
         (channel (and number (< -1 number (length channels)) (aref channels number)))
         (command (second words)))
    (when (and channel command (channel-open channel))
      (cond ((string= command "GAME")
             (destructuring-bind (seed per-turn tt r p s)
                 (mapcar #'parse-integer (cddr words))
               (setf (channel-hist channel) '() (channel-mine channel) 0
                     (channel-theirs channel) 0 (channel-per-turn channel) per-turn
                     (channel-payoffs channel) (list tt r p s)
                     (channel-random-state channel) (sb-ext:seed-random-state seed))))
            ((string= command "SYNC")
             (as-host-sees channel
               (pdharness-host::record-turn (third words) (fourth words))))
            ((string= command "TURN")
             (when (= (length words) 4)
               (as-host-sees channel
                 (pdharness-host::record-turn (third words) (fourth words))))
             (call-agent channel))))))

(defun serve (requests channels)
  (loop for channel across channels do (reply channel "READY"))
  (loop for line = (read-line requests nil nil)
        while line
        do (serve-request line channels)))

(defun result-of (text names)
  "((agent score) ...) from the monitor's lines `SCORE NAME`, best first."
  (loop for start = 0 then (1+ end)
        for end = (position #\Newline text :start start)
        for line = (subseq text start end)
        for space = (position #\Space line)
        when space
          collect (list (or (cdr (assoc (subseq line (1+ space)) names :test #'string=))
                            (subseq line (1+ space)))
                        (parse-integer line :end space))
        while (and end (< (1+ end) (length text)))))

;;; -- monitor --------------------------------------------------------------------------------

(defun monitor (flip-params game-length agents
                &key seed (moves-per-turn 3) max-rounds (timeout 1.0)
                  (decay :percent-per-turn) (isolation :sandbox) (print t)
                  (pdharness "pdharness"))
  "Run the Levinson tournament among AGENTS and return ((agent score) ...), best first;
the full table is printed unless :print nil. AGENTS: #'name of a function of this image
(it plays as itself) or of a pdharness built-in (#'titfortat, #'random, ...)."
  (let ((arguments (command-arguments flip-params game-length seed moves-per-turn
                                      max-rounds timeout decay isolation))
        (program (or (find-program pdharness)
                     (fail "~A is not on PATH: install pdharness (pip install pdharness) ~
                            or give :pdharness \"/path/to/pdharness\"" pdharness))))
    (multiple-value-bind (served builtins names) (agents-of agents)
      (let ((folder (scratch-folder))
            (channels (coerce served 'vector))
            (to-close '()) (process nil) (requests nil)
            (*token* (new-token)) (*limit* timeout))
        (unwind-protect
             (multiple-value-bind (requests-read requests-write) (sb-unix:unix-pipe)
               (push requests-read to-close)
               (push requests-write to-close)
               (let ((child-fds (list requests-write)) (served-arguments '()))
                 (loop for channel across channels
                       do (multiple-value-bind (read write) (sb-unix:unix-pipe)
                            (push read to-close)
                            (push read child-fds)
                            (setf (channel-stream channel)
                                  (sb-sys:make-fd-stream write :output t :buffering :full
                                                               :external-format :utf-8))
                            (push "--served" served-arguments)
                            (push (format nil "~A=~D" (channel-name channel) read)
                                  served-arguments)))
                 (setf process
                       (handler-case
                           (sb-ext:run-program
                            program
                            (append (list "repl-serve" "--requests"
                                          (princ-to-string requests-write)
                                          "--result" (concatenate 'string folder "result"))
                                    (reverse served-arguments) arguments builtins)
                            :search nil :wait nil :input nil
                            :output (concatenate 'string folder "out")
                            :if-output-exists :supersede
                            :error (concatenate 'string folder "err")
                            :if-error-exists :supersede
                            :preserve-fds child-fds
                            :environment (cons (format nil "PDH_REPL_TOKEN=~A" *token*)
                                               (remove-if (lambda (e)
                                                            (eql 0 (search "PDH_" e)))
                                                          (sb-ext:posix-environ))))
                         (error (e) (fail "cannot start ~A: ~A" program e))))
                 ;; the monitor's ends are its own now: its exit is our end of file
                 (dolist (fd child-fds)
                   (sb-unix:unix-close fd)
                   (setf to-close (remove fd to-close)))
                 (setf requests (sb-sys:make-fd-stream requests-read :input t
                                                       :buffering :full
                                                       :external-format :latin-1))
                 (setf to-close (remove requests-read to-close))
                 (serve requests channels)
                 (sb-ext:process-wait process)
                 (let ((err (file-text (concatenate 'string folder "err"))))
                   (unless (eql 0 (sb-ext:process-exit-code process))
                     (fail "~A" (or (last-line err) "pdharness ended with status ~D")
                           (sb-ext:process-exit-code process)))
                   (when print
                     (fresh-line)
                     (write-string (file-text (concatenate 'string folder "out")))
                     (fresh-line)
                     (write-string err *error-output*))
                   (result-of (file-text (concatenate 'string folder "result")) names))))
          (when (and process (sb-ext:process-alive-p process))
            (sb-ext:process-kill process 9)
            (sb-ext:process-wait process))
          (when process (sb-ext:process-close process))
          (when requests (close requests :abort t))
          (loop for channel across channels
                when (channel-stream channel)
                  do (ignore-errors (close (channel-stream channel) :abort t)))
          (dolist (fd to-close) (sb-unix:unix-close fd))
          (dolist (name '("out" "err" "result"))
            (ignore-errors (delete-file (concatenate 'string folder name))))
          (sb-alien:alien-funcall
           (sb-alien:extern-alien "rmdir" (function sb-alien:int sb-alien:c-string))
           folder))))))

;;; The course calls it as plain (monitor ...) from CL-USER.
(setf (fdefinition (intern "MONITOR" :cl-user)) #'monitor)
