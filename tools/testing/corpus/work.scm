;; SPDX-License-Identifier: LGPL-2.1-or-later
;; Guile workload: the interpreter (libgc asks for the main thread's
;; stack), threads that enter Guile (libgc registers each), and deep
;; non-tail recursion on the main thread's stack.
(use-modules (ice-9 threads))
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))
(display (par-map fib '(15 16 17 18))) (newline)
(display (map (lambda (t) (join-thread t))
              (map (lambda (k) (call-with-new-thread (lambda () (* k (fib 12)))))
                   '(1 2 3))))
(newline)
(display (deep 100000)) (newline)
(display (sort '(5 3 9 1 7) <)) (newline)
