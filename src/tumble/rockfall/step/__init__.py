"""The rockfall step and its compiled kernels: the model arrays and the solver :class:`Options`
(``model``), the terrain surface (``surface``), vertex contacts (``detection``), the contact buffer
and its projected Gauss-Seidel solution (``contact``, ``local_solutions``), the Moreau step of one
rock (``moreau``), the loop and stopping rules of one rock (``stepping``), and barrier crossings
and nets inside the step (``nets``). It knows nothing of ensembles, sites or hazard products (an
import contract in ``pyproject.toml`` holds it so)."""
